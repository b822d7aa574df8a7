import { useState } from 'preact/hooks';
import { type CatalogueRule, getJson, type RuleStats } from '../api.ts';
import { label } from '../format.ts';
import { DataTable, ErrorBox, Field, Loading, Section, SeverityBadge, useLoad } from '../ui.tsx';

const W = 720;
const H = 220;
const PAD = { l: 40, r: 10, t: 10, b: 28 };

/** Evaluations (bars) and triggers (line) per day for one rule or all, over the window of the stats. */
function Chart({ stats, ruleId }: { stats: RuleStats; ruleId: string }) {
  const picked = ruleId ? stats.rules.filter((r) => r.rule_id === ruleId) : stats.rules;
  const evals = stats.days.map((_, i) => picked.reduce((s, r) => s + (r.evaluations[i] ?? 0), 0));
  const trig = stats.days.map((_, i) => picked.reduce((s, r) => s + (r.triggers[i] ?? 0), 0));
  const max = Math.max(1, ...evals, ...trig);
  const n = stats.days.length;
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const x = (i: number) => PAD.l + (i + 0.5) * (iw / n);
  const y = (v: number) => PAD.t + ih - (v / max) * ih;
  const bw = Math.max(2, (iw / n) * 0.6);
  const line = trig.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const total = (a: number[]) => a.reduce((s, v) => s + v, 0);
  const desc = `${ruleId || 'All rules'}: ${total(evals)} evaluations and ${total(trig)} triggers from ${stats.days[0]} to ${stats.days[n - 1]}.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={desc} preserveAspectRatio="xMidYMid meet">
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={PAD.l} x2={W - PAD.r} y1={y(max * f)} y2={y(max * f)} class="grid-line" />
            <text x={PAD.l - 6} y={y(max * f) + 4} class="axis" text-anchor="end">
              {Math.round(max * f)}
            </text>
          </g>
        ))}
        {evals.map((v, i) => (
          <rect
            key={stats.days[i]}
            x={x(i) - bw / 2}
            y={y(v)}
            width={bw}
            height={PAD.t + ih - y(v)}
            class="bar"
          >
            <title>
              {stats.days[i]}: {v} evaluations, {trig[i]} triggers
            </title>
          </rect>
        ))}
        <path d={line} class="trigger-line" fill="none" />
        {[0, Math.floor(n / 2), n - 1].map((i) => (
          <text key={i} x={x(i)} y={H - 8} class="axis" text-anchor="middle">
            {stats.days[i]?.slice(5)}
          </text>
        ))}
      </svg>
      <figcaption>
        <span class="legend legend-bar" aria-hidden="true" /> evaluations per day{' '}
        <span class="legend legend-line" aria-hidden="true" /> triggers per day — {desc}
      </figcaption>
    </figure>
  );
}

function Settings({ r }: { r: CatalogueRule }) {
  const entries = Object.entries(r.thresholds);
  return (
    <>
      {entries.length === 0 && !r.high_risk_countries && <span class="muted">—</span>}
      {entries.map(([k, v]) => (
        <div key={k}>
          {k} = <b>{String(v)}</b>
        </div>
      ))}
      {r.high_risk_countries && (
        <details>
          <summary>
            {r.high_risk_countries.codes.length} high-risk countries ({r.high_risk_countries.source},{' '}
            {r.high_risk_countries.date})
          </summary>
          {r.high_risk_countries.codes.join(', ')}
        </details>
      )}
    </>
  );
}

/** The rule catalogue as this client has it configured, with 30 days of evaluations and triggers. */
export function RulesCatalogue() {
  const [ruleId, setRuleId] = useState('');
  const [loaded] = useLoad(
    () =>
      Promise.all([
        getJson<{ items: CatalogueRule[] }>('/api/mica/rules'),
        getJson<RuleStats>('/api/mica/rules/stats?days=30'),
      ]),
    [],
  );
  if (loaded.state === 'loading') return <Loading what="the rules" />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} title="Could not load the rules" />;
  const [{ items: rules }, stats] = loaded.data;
  const totals = new Map(stats.rules.map((s) => [s.rule_id, s]));
  return (
    <>
      <h1 tabIndex={-1}>Rules</h1>
      <Section
        title="Last 30 days"
        actions={
          <Field id="chart-rule" label="Rule" inline>
            <select
              id="chart-rule"
              value={ruleId}
              onChange={(e) => setRuleId((e.target as HTMLSelectElement).value)}
            >
              <option value="">All rules</option>
              {stats.rules.map((r) => (
                <option key={r.rule_id} value={r.rule_id}>
                  {r.rule_id} — {r.name}
                </option>
              ))}
            </select>
          </Field>
        }
      >
        <Chart stats={stats} ruleId={ruleId} />
      </Section>
      <Section title={`Catalogue (${rules.length} rules)`}>
        <DataTable
          heads={[
            'Rule',
            'Name',
            'Art.',
            'State',
            'Contexts',
            'Result / severity',
            'Actions',
            'Conditions',
            'Settings',
            '30 days',
          ]}
        >
          {rules.map((r) => (
            <tr key={r.id} class={r.enabled ? '' : 'disabled'}>
              <td class="nowrap">{r.id}</td>
              <td>{r.name}</td>
              <td>{r.article}</td>
              <td>{r.enabled ? 'on' : <b>off</b>}</td>
              <td>{r.contexts.map(label).join(', ')}</td>
              <td>
                {r.result} <SeverityBadge severity={r.severity} />
              </td>
              <td>{r.actions.join(', ')}</td>
              <td>{r.conditions.join(', ')}</td>
              <td>
                <Settings r={r} />
              </td>
              <td class="nowrap">
                {totals.get(r.id)?.total_evaluations ?? 0} eval. / {totals.get(r.id)?.total_triggers ?? 0}{' '}
                trig.
              </td>
            </tr>
          ))}
        </DataTable>
      </Section>
    </>
  );
}
