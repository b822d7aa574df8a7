import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, getJson, storeKey, type WhoAmI } from '../api.ts';
import { asApiError, ErrorBox } from '../ui.tsx';

/** Sign-in with an API key; the key is kept in this tab's sessionStorage only. */
export function SignIn({ onSignedIn }: { onSignedIn: (me: WhoAmI) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const k = key.trim();
    if (!k) return;
    setBusy(true);
    setError(undefined);
    try {
      const me = await getJson<WhoAmI>('/api/console/whoami', k);
      storeKey(k);
      onSignedIn(me);
    } catch (err) {
      const e2 = asApiError(err);
      setError(
        e2.status === 401
          ? Object.assign(e2, {
              message: 'This key is not valid here (wrong, expired, revoked, or for the other environment).',
            })
          : e2,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <form class="panel signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">MiCA compliance console</h1>
        <p>
          Sign in with your API key. It stays in this browser tab only and is forgotten when the tab closes.
        </p>
        <div class="field">
          <label for="api-key">API key</label>
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
        </div>
        {error && <ErrorBox error={error} title="Sign-in failed" />}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
