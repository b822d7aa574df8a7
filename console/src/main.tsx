import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Counts, forgetKey, getJson, setUnauthorizedHandler, storedKey, type WhoAmI } from './api.ts';
import { href, useRoute } from './router.ts';
import { AlertDetail } from './screens/alert-detail.tsx';
import { AlertsQueue } from './screens/alerts.tsx';
import { AuditSearch } from './screens/audit.tsx';
import { CaseDetail } from './screens/case-detail.tsx';
import { CasesQueue } from './screens/cases.tsx';
import { EvaluationDetail, TryEvaluation } from './screens/evaluation.tsx';
import { RulesCatalogue } from './screens/rules.tsx';
import { SignIn } from './screens/sign-in.tsx';
import './styles.css';

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
      >
        <b>{c?.due_today ?? '–'}</b> due today
      </span>
    </div>
  );
  return (
    <div class="counts" role="status" aria-live="polite">
      {cell('Cases', counts?.cases, '/cases')}
      {cell('Alerts', counts?.alerts, '/alerts')}
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
    // Moving to another screen puts keyboard focus on its heading, as a page load would.
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.path.join('/')]);

  let screen = <CasesQueue query={route.query} me={me} />;
  if (first === 'cases' && second) screen = <CaseDetail id={second} me={me} onChange={changed} />;
  else if (first === 'alerts' && second) screen = <AlertDetail id={second} onChange={changed} />;
  else if (first === 'alerts') screen = <AlertsQueue query={route.query} />;
  else if (first === 'evaluations' && second) screen = <EvaluationDetail id={second} />;
  else if (first === 'audit') screen = <AuditSearch query={route.query} />;
  else if (first === 'rules') screen = <RulesCatalogue />;
  else if (first === 'try') screen = <TryEvaluation me={me} />;

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
  const signOut = () => {
    forgetKey();
    setMe(null);
  };
  useEffect(() => {
    setUnauthorizedHandler(signOut);
    if (!storedKey()) return;
    getJson<WhoAmI>('/api/console/whoami').then(
      (w) => {
        setMe(w);
        setChecking(false);
      },
      () => {
        forgetKey();
        setChecking(false);
      },
    );
  }, []);
  if (checking) return <p class="muted center">Checking your key…</p>;
  if (!me) return <SignIn onSignedIn={setMe} />;
  return <Shell me={me} onSignOut={signOut} />;
}

const root = document.getElementById('app');
if (root) render(<App />, root);
