import assert from 'node:assert/strict';
import { clientWithKey, type TestApp } from './harness.ts';
import { register, signed, startWebhookApp, vendorBody } from './webhooks.ts';

/** The wire keys of an alert and a case, in the contract's order (CONTRACT §5). */
export const ALERT_KEYS =
  'id status resolution severity source event vendor_object_id customer_id transaction_id evaluation_id case_id due_at overdue created_at updated_at payload history'.split(
    ' ',
  );
export const CASE_KEYS =
  'id case_number status resolution reason assignee rule_ids alert_ids evaluation_id due_at overdue created_at updated_at history'.split(
    ' ',
  );

type Who = { auth: Record<string, string> };

/**
 * An app with two tenants (acme with officers olga and bruno, and globex), each with a txmon-a
 * registration, and shorthands to call the API as one of them and to make alerts and cases.
 */
export async function startCasesApi() {
  const t: TestApp = await startWebhookApp();
  const acme = await clientWithKey(t, 'acme');
  const globex = await clientWithKey(t, 'globex');
  await t.deps.clients.addOfficer('acme', 'olga', 'test');
  await t.deps.clients.addOfficer('acme', 'bruno', 'test');
  await register(t, 'txmon-a', 'acme', 'acme-txmon-secret');
  await register(t, 'txmon-a', 'globex', 'globex-txmon-secret');

  const as = (who: Who, extra: Record<string, string> = {}) => ({
    get: (url: string) => t.app.inject({ method: 'GET', url, headers: { ...who.auth, ...extra } }),
    post: (url: string, payload: object) =>
      t.app.inject({ method: 'POST', url, headers: { ...who.auth, ...extra }, payload }),
  });
  /** A txmon-a delivery for the client: high and critical ones open a case. */
  const webhook = async (client: 'acme' | 'globex', severity: string) => {
    const body = vendorBody('txmon-a', { data: { severity, customer_id: 'c-1' } });
    const res = await t.app.inject(signed('txmon-a', `${client}-txmon-secret`, body));
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { platform_alert_id: string; case_id: string | null; case_number: string | null };
  };
  return {
    t,
    acme,
    globex,
    as,
    webhook,
    newAlert: async () => (await webhook('acme', 'low')).platform_alert_id,
    newCase: async () => (await webhook('acme', 'high')).case_id!,
  };
}
export type CasesApi = Awaited<ReturnType<typeof startCasesApi>>;
