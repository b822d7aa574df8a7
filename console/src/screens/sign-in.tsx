import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, storeKey, type WhoAmI } from '../api.ts';
import { ErrorBox, Field, useAction } from '../ui.tsx';

/** Sign-in with an API key; the key is kept in this tab's sessionStorage only. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (me: WhoAmI) => void; notice?: string }) {
  const [key, setKey] = useState('');
  const { error, busy, run } = useAction();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const submit = (e: Event) => {
    e.preventDefault();
    const k = key.trim();
    if (!k) return;
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
