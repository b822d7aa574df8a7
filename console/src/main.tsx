import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  type ApiError,
  type Counts,
  forgetKey,
  getJson,
  setUnauthorizedHandler,
  storedKey,
  storedSession,
  type WhoAmI,
} from './api.ts';
import { href, resetAddress, setRouteSession, useRoute } from './router.ts';
import { AlertDetail } from './screens/alert-detail.tsx';
import { AlertsQueue } from './screens/alerts.tsx';
import { AuditSearch } from './screens/audit.tsx';
import { CaseDetail } from './screens/case-detail.tsx';
import { CasesQueue } from './screens/cases.tsx';
import { EvaluationDetail, TryEvaluation } from './screens/evaluation.tsx';
import { RulesCatalogue } from './screens/rules.tsx';
import { SignIn } from './screens/sign-in.tsx';
import './styles.css';
import { asApiError, ErrorBox, NotFound } from './ui.tsx';

/** Open / overdue / due-today of both queues, refreshed every 30 s and after every action. */
function CountsBar({ counts }: { counts: Counts | undefined }) {
  const cell = (name: string, c: Counts['alerts'] | undefined, path: string) => (
    <div class="counts-group">
      <span class="counts-name">{name}</span>
      <a class="count" href={href(path)} data-testid={`${name.toLowerCase()}-open`}>
        <b>{c?.open ?? '–'}</b> open
      </a>
      <a
        class={`count ${c && c.overdue > 0 ? 'count-overdue' : ''}`}
        href={href(path, { overdue: 'true' })}
        data-testid={`${name.toLowerCase()}-overdue`}
      >
        <b>{c?.overdue ?? '–'}</b> overdue
      </a>
      <span
        class={`count ${c && c.due_today > 0 ? 'count-today' : ''}`}
        data-testid={`${name.toLowerCase()}-due-today`}
        title={counts ? `today in the client's time zone, ${counts.time_zone}` : undefined}
      >
        <b>{c?.due_today ?? '–'}</b> due today
      </span>
    </div>
  );
  return (
    <div class="counts" role="status" aria-live="polite">
      {cell('Cases', counts?.cases, '/cases')}
      {cell('Alerts', counts?.alerts, '/alerts')}
      {counts && (
        <span class="counts-zone" data-testid="counts-zone">
          “today” in {counts.time_zone}
        </span>
      )}
    </div>
  );
}

function Shell({ me, onSignOut }: { me: WhoAmI; onSignOut: () => void }) {
  const route = useRoute();
  const [counts, setCounts] = useState<Counts>();
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  useEffect(() => {
    let live = true;
    const load = () =>
      getJson<Counts>('/api/console/counts').then(
        (c) => live && setCounts(c),
        () => {},
      );
    load();
    const t = window.setInterval(load, 30_000);
    return () => {
      live = false;
      window.clearInterval(t);
    };
  }, [version]);

  const [first = 'cases', second] = route.path;
  useEffect(() => {
    // Moving to another screen puts keyboard focus on its heading, as a page load would. A detail
    // screen shows its heading only once loaded, so the focus waits for it (unless the officer has
    // put it somewhere meanwhile).
    const main = document.getElementById('main');
    const focusHeading = () => {
      const h = main?.querySelector<HTMLElement>('h1');
      const active = document.activeElement;
      const free = !active || active === document.body || active === main || !active.isConnected;
      if (h && free) h.focus();
      return h !== null && h !== undefined;
    };
    if (!main || focusHeading()) return;
    const watch = new MutationObserver(() => focusHeading() && watch.disconnect());
    watch.observe(main, { childList: true, subtree: true });
    const stop = window.setTimeout(() => watch.disconnect(), 15_000);
    return () => {
      watch.disconnect();
      window.clearTimeout(stop);
    };
  }, [route.path.join('/')]);

  let screen = <CasesQueue query={route.query} me={me} />;
  // An address no decoding makes sense of names nothing that can be found.
  if (route.malformed !== undefined) screen = <NotFound what={first} malformed={route.malformed} />;
  else if (first === 'cases' && second) screen = <CaseDetail id={second} me={me} onChange={changed} />;
  else if (first === 'alerts' && second) screen = <AlertDetail id={second} onChange={changed} />;
  else if (first === 'alerts') screen = <AlertsQueue query={route.query} />;
  else if (first === 'evaluations' && second) screen = <EvaluationDetail id={second} />;
  else if (first === 'audit') screen = <AuditSearch query={route.query} />;
  else if (first === 'rules') screen = <RulesCatalogue />;
  else if (first === 'try') screen = <TryEvaluation me={me} onEvaluated={changed} />;

  const nav: Array<[string, string]> = [
    ['cases', 'Cases'],
    ['alerts', 'Alerts'],
    ['audit', 'Audit'],
    ['rules', 'Rules'],
  ];
  if (me.sandbox) nav.push(['try', 'Try an evaluation']);
  return (
    <>
      {/* A button, not a #main link: the hash holds the route. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <div class="brand">
          <span class="logo" aria-hidden="true">
            ◆
          </span>{' '}
          MiCA compliance console
          {me.sandbox && <span class="badge sandbox">sandbox</span>}
        </div>
        <nav class="top-nav" aria-label="Main">
          <ul>
            {nav.map(([path, text]) => (
              <li key={path}>
                <a href={href(`/${path}`)} aria-current={first === path ? 'page' : undefined}>
                  {text}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span data-testid="who">
            {me.officer ?? 'no officer on this key'} · {me.client_name}
          </span>
          <button type="button" class="link" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <CountsBar counts={counts} />
      <main id="main" tabIndex={-1}>
        {screen}
      </main>
    </>
  );
}

function App() {
  const [me, setMe] = useState<WhoAmI | null>(null);
  const [checking, setChecking] = useState(storedKey() !== null);
  // Why the stored key could not be checked, other than its refusal (429, 503, no network).
  const [startError, setStartError] = useState<ApiError>();
  const [attempt, setAttempt] = useState(0);
  // Why the officer is at the sign-in form when the service refused the key mid-session.
  const [signedOutWhy, setSignedOutWhy] = useState<string>();
  // Nothing of the session stays: not the key, not the place in the address (a next key would open
  // the previous officer's search there), not the places Back would return to (see router.ts).
  const signOut = () => {
    forgetKey();
    setRouteSession(null);
    resetAddress();
    setMe(null);
    setStartError(undefined);
    setChecking(false);
  };
  useEffect(() => {
    setUnauthorizedHandler(() => {
      setSignedOutWhy(
        'You were signed out: the service no longer accepts your key (revoked, expired, or rotated out). Sign in with a valid key; anything not yet saved was not sent.',
      );
      signOut();
    });
    if (!storedKey()) return;
    setChecking(true);
    getJson<WhoAmI>('/api/console/whoami').then(
      (w) => {
        setMe(w);
        setStartError(undefined);
        setChecking(false);
      },
      (e) => {
        // Only a refused key is forgotten (the 401 handler does that); a busy or unreachable
        // service is said so, and the officer stays signed in to retry.
        const err = asApiError(e);
        if (err.status === 401) forgetKey();
        else setStartError(err);
        setChecking(false);
      },
    );
  }, [attempt]);
  if (checking) return <p class="muted center">Checking your key…</p>;
  if (startError)
    return (
      <main class="signin" id="main">
        <div class="panel signin-card">
          <h1>MiCA compliance console</h1>
          <ErrorBox error={startError} title="The console could not start" />
          <div class="buttons">
            <button type="button" class="primary" onClick={() => setAttempt((n) => n + 1)}>
              Retry
            </button>
            <button type="button" onClick={signOut}>
              Sign in with another key
            </button>
          </div>
        </div>
      </main>
    );
  if (!me)
    return (
      <SignIn
        notice={signedOutWhy}
        onSignedIn={(w) => {
          setRouteSession(storedSession());
          setSignedOutWhy(undefined);
          setMe(w);
        }}
      />
    );
  return <Shell me={me} onSignOut={signOut} />;
}

// A reload of a signed-in tab keeps its place: its entries carry the id kept with the key.
setRouteSession(storedSession());
const root = document.getElementById('app');
if (root) render(<App />, root);
