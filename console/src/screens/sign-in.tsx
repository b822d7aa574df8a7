import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, getJson, storeKey, type WhoAmI } from '../api.ts';
import { ErrorBox, Field, useAction } from '../ui.tsx';

/**
 * Why a key cannot be one, before it is sent: a key is printable ASCII only (mica_live_ and base64url).
 * A character outside it (an en dash put in by autocorrect, a letter with an accent, a line break)
 * could not even go into the request's header: the browser would refuse to send it, and the officer
 * would be told the service cannot be reached.
 */
export function keyProblem(key: string): string | undefined {
  const bad = /[^\x21-\x7e]/u.exec(key);
  if (!bad) return undefined;
  const c = bad[0];
  const code = `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  const shown = /\s/u.test(c) ? 'a space or line break' : `“${c}”`;
  return `This is not a valid key: it contains characters a key never has (${shown}, ${code}, at position ${bad.index + 1}). A key has only letters, digits, “_” and “-”: paste it again as it was issued (autocorrect may have changed a hyphen).`;
}

/** Sign-in with an API key; the key is kept in this tab's sessionStorage only. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (me: WhoAmI) => void; notice?: string }) {
  const [key, setKey] = useState('');
  const { error, setError, busy, run } = useAction();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const submit = (e: Event) => {
    e.preventDefault();
    const k = key.trim();
    if (!k) return;
    const problem = keyProblem(k);
    if (problem) {
      setError(new ApiError(401, 'INVALID_KEY', problem));
      return;
    }
    void run(
      async () => {
        const me = await getJson<WhoAmI>('/api/console/whoami', k);
        storeKey(k);
        onSignedIn(me);
      },
      // The server's 401 says only "unauthorized"; at sign-in the officer needs to know which keys work here.
      (e2) =>
        e2.status === 401
          ? Object.assign(e2, {
              message: 'This key is not valid here (wrong, expired, revoked, or for the other environment).',
            })
          : e2,
    );
  };
  return (
    <main class="signin" id="main">
      <form class="panel signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">MiCA compliance console</h1>
        {notice && (
          <p class="notice" role="alert">
            {notice}
          </p>
        )}
        <p>
          Sign in with your API key. It stays in this browser tab only and is forgotten when the tab closes.
        </p>
        <Field id="api-key" label="API key">
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            spellcheck={false}
            placeholder="mica_live_…"
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
            required
            ref={input}
          />
        </Field>
        {error && <ErrorBox error={error} title="Sign-in failed" />}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
