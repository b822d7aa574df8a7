import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeSignature } from '../../../src/domain/webhooks/signature.ts';
import {
  createWebhookIntakeService,
  SignatureRejected,
} from '../../../src/services/webhook-intake.service.ts';
import type { WebhookCandidate } from '../../../src/services/webhook-registrations.service.ts';

/** The intake's tenant resolution alone (the rest of its dependencies are never reached). */
function intakeWith(candidates: WebhookCandidate[]) {
  return createWebhookIntakeService({
    registrations: {
      candidates: async (_kind, clientId) =>
        candidates.filter((c) => clientId === undefined || c.clientId === clientId),
    },
    repo: {} as never,
    clientContext: async () => undefined,
    limiter: {} as never,
    limits: { perMinute: 1, perKindPerMinute: 1, unverifiedPerMinute: 1 },
  });
}

const body = Buffer.from('{"id":"d1","event":"alert.created","created_at":"2026-11-26T00:00:00Z","data":{}}');
const headers = (secret: string) => ({ 'x-signature-256': computeSignature(secret, body) });

describe('webhook tenant resolution', () => {
  it('is the client whose registration holds the verifying secret, rotation secrets included', async () => {
    const intake = intakeWith([
      { registrationId: 'r1', clientId: 'acme', secrets: ['acme-old', 'acme-new'] },
      { registrationId: 'r2', clientId: 'globex', secrets: ['globex-1'] },
    ]);
    assert.equal(await intake.authenticate('txmon-a', body, headers('acme-new')), 'acme');
    assert.equal(await intake.authenticate('txmon-a', body, headers('globex-1')), 'globex');
  });

  it('refuses a body that secrets of two clients verify, unless ?client= names one', async () => {
    const intake = intakeWith([
      { registrationId: 'r1', clientId: 'acme', secrets: ['shared'] },
      { registrationId: 'r2', clientId: 'globex', secrets: ['other', 'shared'] },
    ]);
    await assert.rejects(
      intake.authenticate('txmon-a', body, headers('shared')),
      (e: unknown) => e instanceof SignatureRejected && e.reason === 'ambiguous_tenant' && e.status === 401,
    );
    assert.equal(await intake.authenticate('txmon-a', body, headers('shared'), 'globex'), 'globex');
    assert.equal(await intake.authenticate('txmon-a', body, headers('shared'), 'acme'), 'acme');
  });
});
