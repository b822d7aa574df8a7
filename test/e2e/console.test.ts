import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { CONSOLE_DIST } from '../../src/http/routes/console-static.routes.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';
import { type ServerProcess, startServerProcess, tempDataDir } from '../helpers/server-process.ts';
import { signed, TEST_SECRET_KEY, vendorBody } from '../helpers/webhooks.ts';

const CHROMIUM = '/usr/bin/chromium';
const REQUIRED = process.env.CI === '1' || process.env.CI === 'true' || process.env.MICA_E2E_REQUIRED === '1';
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
const DAY_MS = 86_400_000;

/** Width and height of a PNG, read from its IHDR chunk; throws if the bytes are not a PNG. */
function pngSize(file: string): { width: number; height: number; bytes: number } {
  const b = readFileSync(file);
  assert.ok(b.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])), `${file} is a PNG`);
  assert.equal(b.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), bytes: b.length };
}

async function shot(page: Page, name: string, viewport = { width: 1280, height: 800 }) {
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  const size = pngSize(file);
  assert.deepEqual({ width: size.width, height: size.height }, viewport, `${name} screenshot size`);
  // A blank page compresses to a few hundred bytes; a rendered screen is far larger.
  assert.ok(size.bytes > 8_000, `${name} screenshot has content (${size.bytes} bytes)`);
}

/**
 * Seeds the store the server will open: client acme with officers olga and bruno, a key issued to
 * olga, a txmon-a registration, and one high-severity webhook delivery (through the real intake)
 * whose case has since gone past its deadline. The store holds no clock to wind back, so the
 * delivery's case and alert are moved 8 days into the past, as if it had arrived then.
 */
async function seed(env: Record<string, string>, opts: { moreAlerts?: number } = {}) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', MICA_DEMO_SEED: 'false' });
  const deps = await createDeps(config);
  try {
    await deps.clients.create('acme', { name: 'Acme Markets', actor: 'e2e' });
    await deps.clients.addOfficer('acme', 'olga', 'e2e');
    await deps.clients.addOfficer('acme', 'bruno', 'e2e');
    const key = await deps.keys.create('acme', { officer: 'olga', actor: 'e2e' });
    // For the sandbox service (MICA_ENVIRONMENT=sandbox), where "Try an evaluation" is offered.
    const testKey = await deps.keys.create('acme', { officer: 'bruno', sandbox: true, actor: 'e2e' });
    await deps.commands('webhooks.add', { kind: 'txmon-a', client_id: 'acme', secret: 'acme-secret' }, 'e2e');
    const app = await buildApp(deps, { logger: false });
    const body = vendorBody('txmon-a', {
      data: {
        severity: 'high',
        customer_id: 'cust-77',
        transaction_id: 'tx-77',
        reason: 'structuring pattern',
        account_ref: '__BIG__',
      },
    });
    // A number no double holds exactly: the console must show it as the vendor sent it.
    const text = JSON.stringify(body).replace('"__BIG__"', '1234567890123456789');
    const res = await app.inject(signed('txmon-a', 'acme-secret', text));
    assert.equal(res.statusCode, 200, res.body);
    const ack = res.json() as { case_id: string; case_number: string; platform_alert_id: string };
    // A low-severity delivery: an alert in no case, to escalate into an existing case.
    const low = await app.inject(
      signed(
        'txmon-a',
        'acme-secret',
        vendorBody('txmon-a', { data: { severity: 'low', customer_id: 'c-9' } }),
      ),
    );
    assert.equal(low.statusCode, 200, low.body);
    assert.equal(low.json().case_id, null);
    await app.close();
    const shift = `${8 * DAY_MS} milliseconds`;
    const back = (table: 'cases' | 'alerts', id: string) =>
      sql`UPDATE ${sql.table(table)}
             SET created_at = created_at - ${shift}::interval, due_at = due_at - ${shift}::interval,
                 updated_at = updated_at - ${shift}::interval,
                 history = (SELECT coalesce(jsonb_agg(jsonb_set(h, '{at}', to_jsonb(to_char(((h->>'at')::timestamptz - ${shift}::interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))))
                              , '[]'::jsonb) FROM jsonb_array_elements(history) h)
           WHERE id = ${id}::uuid`.execute(deps.db);
    await back('cases', ack.case_id);
    await back('alerts', ack.platform_alert_id);
    // More alerts in the overdue case, written straight to the store (copies of its alert), each
    // with one history entry of its own: "bulk alert <n>".
    if (opts.moreAlerts)
      await sql`
        INSERT INTO alerts (id, client_id, status, resolution, severity, source, event, vendor_object_id,
                            customer_id, transaction_id, evaluation_id, case_id, rule_ids, due_at, created_at,
                            updated_at, payload, headers, history)
        SELECT gen_random_uuid(), client_id, status, resolution, severity, source, event,
               vendor_object_id || '-' || g, customer_id, transaction_id, evaluation_id, case_id, rule_ids,
               due_at, created_at + g * interval '1 ms', updated_at + g * interval '1 ms', payload, headers,
               jsonb_build_array(jsonb_build_object(
                 'at', to_char((created_at + g * interval '1 ms') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                 'actor', 'e2e', 'actor_name', null, 'from', null, 'to', 'open', 'note', 'bulk alert ' || g))
          FROM alerts, generate_series(1, ${opts.moreAlerts}::int) g
         WHERE id = ${ack.platform_alert_id}::uuid`.execute(deps.db);
    return {
      key: key.key,
      keyId: key.key_id,
      testKey: testKey.key,
      ...ack,
      lowAlertId: low.json().platform_alert_id as string,
    };
  } finally {
    await deps.close();
  }
}

describe('web console, end to end in Chromium', () => {
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;
  const present = existsSync(CHROMIUM);
  const launch = async (): Promise<Browser> => {
    if (browser) return browser;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    return browser;
  };
  /** Skips (or fails, where the browser is required) a test without Chromium; true when it may run. */
  const canRun = (t: { skip: (why: string) => void }) => {
    if (present) return true;
    if (REQUIRED) assert.fail(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
    t.skip(
      `${CHROMIUM} is not installed (apt-get install chromium); set MICA_E2E_REQUIRED=1 to fail instead`,
    );
    return false;
  };

  before(async () => {
    if (!present) return;
    if (!existsSync(join(CONSOLE_DIST, 'index.html'))) {
      const { build } = await import('vite');
      await build({ configFile: 'console/vite.config.ts', logLevel: 'warn' });
    }
  });
  /** A fresh store for one server run (a new data dir; on PostgreSQL, the database reset). */
  async function freshServerEnv(): Promise<Record<string, string>> {
    mkdirSync(ARTIFACTS, { recursive: true });
    if (TEST_DATABASE_URL) await (await freshDatabase()).close();
    return {
      MICA_DATA_DIR: tempDataDir(),
      MICA_SECRET_KEY: TEST_SECRET_KEY,
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
    };
  }

  /**
   * A sandbox service (MICA_ENVIRONMENT=sandbox) on a fresh store, replacing any other. Its seeded
   * case holds 104 more alerts (105 in all, more than a case page carries), which only the case page
   * of the last test looks at; seeding and starting a service takes long, so the two share it.
   */
  let sandbox: Awaited<ReturnType<typeof seed>> | undefined;
  async function sandboxServer() {
    await server?.stop();
    server = undefined;
    sandbox = undefined;
    const env = await freshServerEnv();
    const s = await seed(env, { moreAlerts: 104 });
    server = await startServerProcess({
      ...env,
      MICA_DEMO_SEED: 'false',
      STR_SWEEP_CRON: 'off',
      MICA_ENVIRONMENT: 'sandbox',
    });
    sandbox = s;
    return s;
  }

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in, works the overdue case through to closed, and finds the moves in the export', async (t) => {
    if (!canRun(t)) return;
    const env = await freshServerEnv();
    const s = await seed(env);
    server = await startServerProcess({ ...env, MICA_DEMO_SEED: 'false', STR_SWEEP_CRON: 'off' });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server!.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      });
    // Evaluations for the chart and the evaluation screen: one that blocks and opens a case, one clean.
    const evaluate = async (id: string, data: Record<string, unknown>) => {
      const res = await api('/api/mica/evaluate', {
        method: 'POST',
        body: JSON.stringify({ client_id: 'acme', trigger_type: 'transaction', trigger_entity_id: id, data }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return ((await res.json()) as { evaluation_id: string }).evaluation_id;
    };
    const blocked = await evaluate('tx-e2e-1', {
      customer_id: 'c-9',
      customer_verified: true,
      amount_eur: 2500,
    });
    await evaluate('tx-e2e-2', {
      customer_id: 'c-9',
      customer_verified: true,
      amount_eur: 10,
      full_cdd_complete: true,
    });

    const context = await (await launch()).newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const foreign: string[] = [];
    const origin = new URL(server.url).origin;
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')) foreign.push(u);
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));

    // Sign in.
    await page.goto(`${server.url}/console`);
    await page.getByLabel('API key').waitFor();
    await shot(page, '01-sign-in');
    await page.getByLabel('API key').fill(s.key);
    await page.keyboard.press('Enter');

    // Cases queue: the overdue case is there, marked overdue, and counted.
    await page.getByRole('heading', { name: 'Cases', level: 1 }).waitFor();
    const row = page.locator('tr', { hasText: s.case_number });
    await row.waitFor();
    assert.match(await row.innerText(), /overdue by \d+d/);
    await page.getByTestId('cases-overdue').getByText('1').waitFor();
    assert.match(await page.getByTestId('who').innerText(), /olga · Acme Markets/);
    await shot(page, '02-cases-queue');

    // The severity filter: kept in the URL, applied by the server; the high case is not critical.
    await page.getByLabel('Severity').selectOption('critical');
    await page.waitForURL(/#\/cases\?(.*&)?severity=critical/);
    await page.locator('tr', { hasText: s.case_number }).waitFor({ state: 'detached' });
    await page.locator('table.queue, p.empty').first().waitFor();
    assert.equal(await page.locator('tr', { hasText: s.case_number }).count(), 0);
    await page.getByLabel('Severity').selectOption('high');
    await page.waitForURL(/#\/cases\?(.*&)?severity=high/);
    await row.waitFor();
    const badges = await page.locator('table.queue tbody tr td:first-child').allInnerTexts();
    assert.ok(badges.length > 0 && badges.every((b) => b.trim().toLowerCase() === 'high'), badges.join(', '));
    await shot(page, '02b-cases-by-severity');
    await page.getByLabel('Severity').selectOption('');
    await page.waitForURL((u) => !u.hash.includes('severity='));
    await row.waitFor();

    // Case detail: the linked alert with its payload; then investigating → pending_filing → closed.
    // The page is one request (the case with its alerts and evaluations), not one per alert: every
    // request counts against the client's API rate limit.
    const apiCalls: string[] = [];
    const onApiCall = (r: { url: () => string }) => {
      const u = new URL(r.url());
      if (u.origin === origin && u.pathname.startsWith('/api/')) apiCalls.push(u.pathname);
    };
    page.on('request', onApiCall);
    await row.getByRole('link', { name: s.case_number }).click();
    await page.getByRole('heading', { name: new RegExp(s.case_number), level: 1 }).waitFor();
    await page.getByText('Raw vendor payload').first().waitFor();
    page.off('request', onApiCall);
    // (The shell's counts and the queue it left may be refreshed meanwhile; not the case's requests.)
    const caseCalls = apiCalls.filter((u) => !['/api/console/counts', '/api/console/cases'].includes(u));
    assert.deepEqual(
      caseCalls,
      [`/api/console/cases/${s.case_number}`],
      `the case page's requests: ${apiCalls}`,
    );
    // The heading takes the keyboard focus once the case has loaded (the clicked link is gone).
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    // Times carry their zone, and the counts say whose "today" they count.
    assert.match(await page.getByTestId('counts-zone').innerText(), /today.* in UTC/);
    await page.getByText('Raw vendor payload').first().click();
    const payloadText = await page.locator('pre.json').first().innerText();
    assert.match(payloadText, /structuring pattern/);
    assert.match(payloadText, /"account_ref": 1234567890123456789\b/, 'the number as the vendor sent it');
    await shot(page, '03-case-detail');
    const moves: Array<[string, string, string | undefined]> = [
      ['investigating', 'Started the review of the structuring pattern', undefined],
      ['pending_filing', 'Pattern confirmed; report drafted for the FIU', undefined],
      ['closed', 'Report filed with the FIU, reference FIU-2026-118', 'report_filed'],
    ];
    // Someone else moves the case first: the console's move is refused, and the page then shows
    // the case as it is now, with the moves allowed from there.
    const first = await api(`/api/cases/${s.case_id}/transition`, {
      method: 'POST',
      body: JSON.stringify({ to: moves[0]![0], note: moves[0]![1] }),
    });
    assert.equal(first.status, 200, await first.clone().text());
    await page.locator(`[data-move="${moves[0]![0]}"]`).click();
    await page.getByLabel('Note (required)').fill('started at the same time');
    await page.getByRole('button', { name: /^Confirm:/ }).click();
    await page.getByText('The move was refused').waitFor();
    await page.getByTestId('case-status').getByText('investigating').waitFor();
    await page.locator('[data-move="pending_filing"]').waitFor();
    // The reload after a successful move fails once (as when the rate limit is exhausted): the page
    // keeps the case as loaded, says the refresh failed, and a retry shows the case as it is now.
    let failNextLoad = false;
    await page.route('**/api/console/cases/*', (route) => {
      if (!failNextLoad || route.request().method() !== 'GET') return route.continue();
      failNextLoad = false;
      return route.fulfill({
        status: 429,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded' } }),
      });
    });
    for (const [to, note, resolution] of moves.slice(1)) {
      const buttons = await page
        .locator('[data-move]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-move')));
      assert.ok(buttons.includes(to), `move to ${to} offered (offered: ${buttons.join(', ')})`);
      // The closing move is made elsewhere first: the console's is refused, and the officer is told
      // so even though the closed case offers no move any more (their note was not recorded).
      const closedElsewhere = to === 'closed';
      if (closedElsewhere) {
        const res = await api(`/api/cases/${s.case_id}/transition`, {
          method: 'POST',
          body: JSON.stringify({ to, note, resolution }),
        });
        assert.equal(res.status, 200, await res.clone().text());
      }
      await page.locator(`[data-move="${to}"]`).click();
      await page.getByLabel('Note (required)').fill(closedElsewhere ? 'closing at the same time' : note);
      if (resolution) await page.getByLabel('Resolution (required)').selectOption(resolution);
      failNextLoad = to === 'pending_filing';
      await page.getByRole('button', { name: /^Confirm:/ }).click();
      if (to === 'pending_filing') {
        const failed = page.getByTestId('refresh-failed');
        await failed.waitFor();
        assert.match(await failed.innerText(), /Could not refresh the case.*Rate limit exceeded/s);
        // Still the case page, as last loaded (the move was recorded; the page does not know yet).
        await page.getByRole('heading', { name: new RegExp(s.case_number), level: 1 }).waitFor();
        assert.match(await page.getByTestId('case-status').innerText(), /investigating/i);
        await page.getByText('Raw vendor payload').first().waitFor();
        await shot(page, '03b-case-refresh-failed');
        await failed.getByRole('button', { name: 'Retry' }).click();
        await failed.waitFor({ state: 'detached' });
      }
      await page.getByTestId('case-status').getByText(to.replace('_', ' '), { exact: false }).waitFor();
      if (closedElsewhere) {
        await page.getByText('The move was refused').waitFor();
        await page.getByText('no further move is possible').waitFor();
      }
    }
    await page.unroute('**/api/console/cases/*');
    assert.equal(await page.locator('[data-move]').count(), 0, 'a closed case offers no move');
    await page.getByRole('cell', { name: 'Report filed with the FIU, reference FIU-2026-118' }).waitFor();
    await shot(page, '04-case-closed');

    // One-click export of the case history from the page, as a downloaded file.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export history CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const actor = s.keyId;
    for (const [to, note] of moves)
      assert.ok(
        csv
          .split('\r\n')
          .some((l) => l.includes(`,${to},`) && l.includes(note) && l.includes(`,${actor},olga,`)),
        `the export holds the move to ${to} by olga:\n${csv}`,
      );
    assert.match(csv, /,closed,[^\r\n]*,report_filed\r\n/);

    // The same moves through the API export, in order.
    const json = (await (
      await api(`/api/mica/audit/transitions?case_id=${s.case_number}&format=json`)
    ).json()) as Array<{
      kind: string;
      to: string;
      actor: string;
      actor_name: string | null;
    }>;
    assert.deepEqual(
      json.filter((r) => r.kind === 'case' && r.actor === actor && r.actor_name === 'olga').map((r) => r.to),
      ['investigating', 'pending_filing', 'closed'],
    );

    // Escalating an alert through the console into an existing open case (the one the blocked
    // evaluation opened), not a new one: the form says which before the move is confirmed.
    type CaseRef = { id: string; case_number: string; evaluation_id: string | null; alert_ids: string[] };
    const openCases = async () =>
      ((await (await api('/api/cases?status=open&limit=200')).json()) as { items: CaseRef[] }).items;
    const target = (await openCases()).find((c) => c.evaluation_id === blocked);
    assert.ok(target, 'the blocked evaluation opened a case');
    const casesBefore = (await openCases()).length;
    await page.goto(`${server.url}/console/#/alerts/${s.lowAlertId}`);
    await page.locator('[data-move="escalated"]').click();
    await page.getByLabel('Note (required)').fill('Same customer as the blocked transfer');
    const outcome = page.getByTestId('escalation-outcome');
    await outcome.getByText('A new case will be opened').waitFor();
    await page.locator('#move-case').selectOption(target.id);
    await outcome.getByText(`The alert will join ${target.case_number}`).waitFor();
    await shot(page, '05a-escalate-into-case');
    await page.getByRole('button', { name: /^Confirm:/ }).click();
    await page.locator('[data-move="escalated"]').waitFor({ state: 'detached' });
    const escalated = (await (await api(`/api/alerts/${s.lowAlertId}`)).json()) as {
      status: string;
      case_id: string | null;
    };
    assert.deepEqual([escalated.status, escalated.case_id], ['escalated', target.id]);
    assert.equal((await openCases()).length, casesBefore, 'no case was opened');
    // The case page lists the alert that joined it.
    await page.getByRole('link', { name: 'view the case' }).click();
    await page.getByRole('heading', { name: new RegExp(target.case_number), level: 1 }).waitFor();
    await page.getByRole('link', { name: `Alert ${s.lowAlertId.slice(0, 8)}` }).waitFor();

    // The other screens, each one rendered and captured.
    await page.goto(`${server.url}/console/#/alerts`);
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await page.locator('table.queue tbody tr').first().waitFor();
    await shot(page, '05-alerts-queue');
    await page.goto(`${server.url}/console/#/alerts/${s.platform_alert_id}`);
    await page.getByRole('heading', { name: 'Raw vendor payload' }).waitFor();
    await shot(page, '06-alert-detail');
    await page.goto(`${server.url}/console/#/evaluations/${blocked}`);
    await page.getByRole('heading', { name: 'Rules', level: 2 }).waitFor();
    assert.match(await page.locator('main').innerText(), /MICA-CDD-002/);
    await shot(page, '07-evaluation');
    await page.getByRole('link', { name: 'audit rows of this evaluation' }).click();
    await page.locator('td', { hasText: 'MICA-CDD-002' }).first().waitFor();
    await shot(page, '08-audit-evaluations');
    await page.goto(`${server.url}/console/#/audit?tab=transitions`);
    await page.getByRole('cell', { name: 'Started the review of the structuring pattern' }).waitFor();
    await shot(page, '09-audit-transitions');
    await page.goto(`${server.url}/console/#/rules`);
    await page.locator('figure.chart svg').waitFor();
    // Two transaction evaluations of 8 rules each today; CDD-002 triggered once.
    assert.match(await page.locator('figure.chart figcaption').innerText(), /16 evaluations and 1 triggers/);
    await shot(page, '10-rules');

    // A narrow screen still shows the queue.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/console/#/cases?status=closed`);
    await page.locator('tr', { hasText: s.case_number }).waitFor();
    await shot(page, '11-cases-narrow', { width: 390, height: 844 });

    // The key revoked mid-session (through the running server, as an operator would): the next
    // screen lands on the sign-in form, which says why.
    const revoked = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'revoke', s.keyId],
      {
        env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(revoked.status, 0, revoked.stderr);
    await page.goto(`${server.url}/console/#/alerts`);
    await page.getByRole('alert').filter({ hasText: 'no longer accepts your key' }).waitFor();
    await shot(page, '12-signed-out', { width: 390, height: 844 });

    assert.deepEqual(foreign, [], 'the console makes no request beyond its own origin');
    assert.deepEqual(pageErrors, [], 'no script error on any screen');
  });

  it('sandbox: refuses an unsendable key, refreshes the counts after a try, searches audit days in local time', async (t) => {
    if (!canRun(t)) return;
    const s = await sandboxServer();
    if (!server) throw new Error('no server');
    // A time zone where the officer's day is not the UTC day at this hour (the rows are shown in
    // it): Pago Pago (UTC-11) before 10:30 UTC, where it is still yesterday; Kiritimati (UTC+14)
    // from then on, where it is already tomorrow.
    const now = new Date();
    const [zone, offset] =
      now.getUTCHours() * 60 + now.getUTCMinutes() < 630
        ? ['Pacific/Pago_Pago', '-11:00']
        : ['Pacific/Kiritimati', '+14:00'];
    const context = await (await launch()).newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
      timezoneId: zone,
    });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url})`);
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const origin = new URL(server.url).origin;
    const apiRequests: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin === origin && u.pathname.startsWith('/api/')) apiRequests.push(`${u.pathname}${u.search}`);
    });

    // The page declares its icon: the browser asks for no /favicon.ico (a 404 in the console).
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('API key').waitFor();
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    assert.match(icon ?? '', /^data:image\/svg\+xml,/);

    // A key autocorrect changed (an en dash for its hyphen) cannot go into a header: it is refused
    // as not a key, not sent, and not taken for a service out of reach.
    await page.getByLabel('API key').fill(s.testKey.replace('mica_test_', 'mica–test_'));
    await page.keyboard.press('Enter');
    const refused = page.getByRole('alert').filter({ hasText: 'Sign-in failed' });
    await refused.waitFor();
    assert.match(
      await refused.innerText(),
      /This is not a valid key: it contains characters a key never has \(“–”/,
    );
    assert.doesNotMatch(await refused.innerText(), /cannot be reached/);
    assert.equal(apiRequests.length, 0, `nothing was sent: ${apiRequests}`);
    await shot(page, '13-sign-in-invalid-key');

    await page.getByLabel('API key').fill(s.testKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Cases', level: 1 }).waitFor();
    const openCases = page.getByTestId('cases-open');
    await page.waitForFunction(() =>
      /\d/.test(document.querySelector('[data-testid="cases-open"]')?.textContent ?? ''),
    );
    const before = Number.parseInt(await openCases.innerText(), 10);

    // Try an evaluation: the example blocks a transfer and opens a case; the counts bar says so at
    // once, not at its next 30 s refresh.
    await page.getByRole('link', { name: 'Try an evaluation' }).click();
    await page.getByRole('heading', { name: 'Try an evaluation (sandbox)', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await page.getByRole('heading', { name: 'Rules', level: 2 }).waitFor();
    const evaluationId = /#\/evaluations\/([^/?]+)/.exec(page.url())?.[1];
    assert.ok(evaluationId, page.url());
    await openCases.getByText(String(before + 1), { exact: true }).waitFor({ timeout: 5_000 });

    // Audit days are days in the officer's time zone, which the form names; each is sent as the
    // instant that day starts there. The evaluation's local day is not its UTC day here.
    const res = await fetch(`${server.url}/api/console/evaluations/${evaluationId}`, {
      headers: { authorization: `Bearer ${s.testKey}` },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const at = new Date(((await res.json()) as { evaluated_at: string }).evaluated_at);
    const dayIn = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(d);
    const day = dayIn(at);
    const next = dayIn(new Date(at.getTime() + 86_400_000));
    assert.notEqual(day, at.toISOString().slice(0, 10), 'the local day is not the UTC day');
    await page.goto(`${server.url}/console/#/audit`);
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    assert.match(
      await page.getByTestId('audit-zone').innerText(),
      new RegExp(`Dates are days in your time zone, ${zone} \\(UTC\\${offset} now\\)`),
    );
    await page.getByLabel('From').fill(day);
    await page.getByLabel('To (exclusive)').fill(next);
    apiRequests.length = 0;
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('td', { hasText: 'MICA-CDD-002' }).first().waitFor();
    const from = `${day}T00:00:00${offset}`;
    const to = `${next}T00:00:00${offset}`;
    const searched = apiRequests.find((u) => u.startsWith('/api/mica/audit/evaluations?'));
    assert.ok(searched, apiRequests.join(', '));
    const q = new URL(searched, origin).searchParams;
    assert.deepEqual([q.get('from'), q.get('to')], [from, to]);
    // The address keeps the instants (bookmarkable, the same rows in any time zone), the form the days.
    const hash = new URLSearchParams(new URL(page.url()).hash.split('?')[1]);
    assert.deepEqual([hash.get('from'), hash.get('to')], [from, to]);
    assert.equal(await page.getByLabel('From').inputValue(), day);
    assert.match(
      await page.getByTestId('audit-span').innerText(),
      /^Rows from .* up to .* \(not included\)\.$/,
    );
    assert.ok(
      (await page.locator('table tbody tr').allInnerTexts()).every((r) =>
        r.includes(evaluationId.slice(0, 8)),
      ),
      'only the rows of that day',
    );
    await shot(page, '14-audit-local-days');
    // The export takes the same instants.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    assert.match(readFileSync((await download.path())!, 'utf8'), new RegExp(evaluationId));
    // The day after finds nothing.
    await page.getByLabel('From').fill(next);
    await page.getByLabel('To (exclusive)').fill(dayIn(new Date(at.getTime() + 2 * 86_400_000)));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('p.empty').waitFor();

    await context.close();
    assert.deepEqual(consoleErrors, [], 'no error in the browser console (no /favicon.ico 404)');
    assert.deepEqual(pageErrors, [], 'no script error on any screen');
  });

  it('keyboard and screen reader after moves, a 105-alert case in full, broken links, sign-out leaves nothing, numbers tried as typed', async (t) => {
    if (!canRun(t)) return;
    // The sandbox test's service, if it ran (its seeded case has 105 alerts); else one like it.
    const s = sandbox ?? (await sandboxServer());
    if (!server) throw new Error('no server');
    const context = await (await launch()).newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const signIn = async () => {
      await page.getByLabel('API key').fill(s.testKey);
      await page.keyboard.press('Enter');
      await page.getByTestId('who').waitFor();
    };
    /** What has the keyboard focus: its tag, test id, data-move, role and text. */
    const focused = () =>
      page.evaluate(() => {
        const a = document.activeElement as HTMLElement | null;
        return {
          tag: a?.tagName ?? '',
          testId: a?.getAttribute('data-testid') ?? null,
          move: a?.getAttribute('data-move') ?? null,
          role: a?.getAttribute('role') ?? null,
          text: (a?.innerText ?? '').slice(0, 120),
        };
      });
    const hash = () => new URL(page.url()).hash;

    await page.goto(`${server.url}/console/`);
    await signIn();
    await page.getByRole('heading', { name: 'Cases', level: 1 }).waitFor();

    // A deep link with a broken %-escape: "not found", as for an unknown id, also on a reload there.
    await page.goto(`${server.url}/console/#/cases/%E0%A4%A`);
    const notFound = page.getByRole('alert').filter({ hasText: 'No such case for this client' });
    await notFound.waitFor();
    await page.getByRole('heading', { name: 'Case %E0%A4%A', level: 1 }).waitFor();
    await page.reload();
    await notFound.waitFor();
    assert.deepEqual(pageErrors, [], 'no script error on a broken link');

    // The case with 105 alerts: the first 100 in full, links to the other 5, and the whole history.
    await page.goto(`${server.url}/console/#/cases/${s.case_number}`);
    await page.getByRole('heading', { name: new RegExp(s.case_number), level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Linked alerts (the first 100 of 105)' }).waitFor();
    assert.equal(await page.getByTestId('other-alerts').getByRole('link').count(), 5);
    const bulkRows = () =>
      page
        .locator('td.note')
        .evaluateAll((cells) =>
          cells.map((c) => c.textContent ?? '').filter((x) => /^bulk alert \d+$/.test(x)),
        );
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('td.note')].filter((c) => /^bulk alert/.test(c.textContent ?? ''))
          .length >= 104,
      undefined,
      { timeout: 10_000 },
    );
    const bulk = await bulkRows();
    assert.deepEqual(
      bulk.map((x) => Number(x.slice('bulk alert '.length))).sort((a, b) => a - b),
      Array.from({ length: 104 }, (_, i) => i + 1),
      'the history holds the entry of every linked alert',
    );
    await shot(page, '15-case-105-alerts');

    // A move made with the keyboard only: afterwards the focus is on what it did, said in a live
    // region, and the next Tab goes on from the moves, not from the top of the page.
    await page.locator('[data-move="investigating"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'move-note');
    await page.keyboard.type('Reviewing the structuring pattern, keyboard only');
    await page.keyboard.press('Tab');
    assert.match((await focused()).text, /^Confirm: open → investigating/);
    await page.keyboard.press('Enter');
    await page.getByTestId('case-status').getByText('investigating').waitFor();
    let f = await focused();
    assert.equal(f.testId, 'action-outcome', `the focus after the move: ${JSON.stringify(f)}`);
    assert.equal(f.role, 'status');
    assert.match(f.text, /Moved from open to investigating/);
    await page.keyboard.press('Tab');
    f = await focused();
    assert.ok(f.move, `the next Tab reaches the moves: ${JSON.stringify(f)}`);

    // Reassignment likewise: its button is disabled once done, the focus is not lost with it.
    const assignee = page.locator('#assignee');
    const other = (await assignee.inputValue()) === 'olga' ? 'bruno' : 'olga';
    await assignee.focus();
    await assignee.selectOption(other);
    await page.keyboard.press('Tab');
    assert.equal((await focused()).text, 'Reassign');
    await page.keyboard.press('Enter');
    await page.locator('dd', { hasText: new RegExp(`^${other}$`) }).waitFor();
    f = await focused();
    assert.equal(f.testId, 'action-outcome', `the focus after the reassignment: ${JSON.stringify(f)}`);
    assert.equal(f.text, `Reassigned to ${other}.`);
    await shot(page, '16-case-moved-by-keyboard');

    // Signing out leaves nothing of the session: not the search in the address (a next key would
    // open it), not the case and search pages Back would return to.
    await page.evaluate(() => {
      location.hash = '#/audit?customer_id=cust-42';
    });
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    assert.equal(hash(), '', 'the start page, not the last search');
    await page.goBack();
    await page.waitForFunction(() => location.hash === '', undefined, { timeout: 5_000 });
    assert.equal(await page.getByLabel('API key').count(), 1, 'still signed out');
    await signIn();
    await page.getByRole('heading', { name: 'Cases', level: 1 }).waitFor();
    assert.ok(!hash().includes('cust-42') && !hash().includes('/audit'), hash());
    // Back from the next officer's start page does not reach the previous officer's places either.
    await page.goBack();
    await page.waitForFunction(() => location.hash === '', undefined, { timeout: 5_000 });
    await page.getByRole('heading', { name: 'Cases', level: 1 }).waitFor();

    // A key the service refuses mid-session: the same.
    await page.evaluate(() => {
      location.hash = '#/audit?customer_id=cust-42';
    });
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    await page.route('**/api/**', (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } }),
      }),
    );
    await page.evaluate(() => {
      location.hash = '#/alerts';
    });
    await page.getByRole('alert').filter({ hasText: 'no longer accepts your key' }).waitFor();
    assert.equal(hash(), '', 'the start page after a refused key');
    await page.unroute('**/api/**');

    // The sandbox try-out sends the request exactly as typed: no number rounded on the way.
    await signIn();
    await page.getByRole('link', { name: 'Try an evaluation' }).click();
    await page.getByRole('heading', { name: 'Try an evaluation (sandbox)', level: 1 }).waitFor();
    const typed = `{
  "client_id": "acme",
  "trigger_type": "transaction",
  "trigger_entity_id": "tx-exact-1",
  "data": { "customer_id": "c-1", "customer_verified": true, "amount_eur": 12345678901234567890123, "full_cdd_complete": false }
}`;
    await page.getByLabel('Evaluation request (JSON)').fill(typed);
    const [sent] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith('/api/mica/evaluate') && r.method() === 'POST'),
      page.getByRole('button', { name: 'Evaluate' }).click(),
    ]);
    assert.equal(sent.postData(), typed, 'the request as typed');
    await page.getByRole('heading', { name: 'Rules', level: 2 }).waitFor();

    await context.close();
    assert.deepEqual(pageErrors, [], 'no script error on any screen');
  });
});
