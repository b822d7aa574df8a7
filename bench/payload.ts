/** The evaluation payloads sent by every load generator: realistic, varied transaction evaluations. */

/** Size of the customer pool the customer ids are drawn from. */
export const CUSTOMER_POOL = 1000;

const COUNTRIES = ['DE', 'FR', 'NL', 'ES', 'IT', 'AT', 'BE', 'PT', 'IE', 'FI'];
const TYPES = ['send', 'receive', 'trade'] as const;
const VALIDATION = ['passed', 'passed', 'passed', 'pending', 'failed'] as const;

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const chance = (p: number): boolean => Math.random() < p;

/** A run-unique prefix so that trigger_entity_id never repeats, even across runs on the same store. */
const RUN = Date.now().toString(36);
let seq = 0;

/**
 * Transaction amounts are heavy-tailed, as in real flows: log-normal with a median of EUR 200, so
 * about 14 % reach EUR 1,000 (the CDD threshold) and about 0.5 % EUR 10,000 (the reportable one).
 * A uniform draw up to 20,000 would make half of all transactions reportable and open a case each.
 */
function amountEur(): number {
  const u = 1 - Math.random();
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * Math.random());
  return Math.min(Math.round(200 * Math.exp(1.5 * z) * 100) / 100, 5_000_000);
}

/** One transaction evaluation request for `clientId`, as JSON text; each call has a new transaction id. */
export function transactionBody(clientId: string): string {
  seq++;
  const amount = amountEur();
  return JSON.stringify({
    client_id: clientId,
    trigger_type: 'transaction',
    trigger_entity_type: 'transaction',
    trigger_entity_id: `tx-${RUN}-${seq}`,
    data: {
      customer_id: `cust-${Math.floor(Math.random() * CUSTOMER_POOL)}`,
      customer_verified: chance(0.95),
      customer_country: pick(COUNTRIES),
      amount_eur: amount,
      amount_crypto: Math.round((amount / 50_000) * 1e8) / 1e8,
      transaction_type: pick(TYPES),
      full_cdd_complete: chance(0.8),
      self_hosted_wallet: chance(0.2),
      ownership_verified: chance(0.7),
      wallet_address: `0x${seq.toString(16).padStart(40, '0')}`,
      address_validation_status: pick(VALIDATION),
      multiple_identities_detected: chance(0.01),
      suspicious_activity_detected: chance(0.01),
    },
  });
}

/** Finds the evaluation_id in a response body (real server and baseline alike). */
export const EVALUATION_ID = /"evaluation_id":"([0-9a-f-]{36})"/;

/**
 * A copy of `s` that does not keep alive the string it was cut from. V8 keeps a substring of 13 or
 * more characters (a regex group) as a slice of its parent, so holding the evaluation_id of every
 * answer held every ~2 KB body: the load generator's heap reached ~900 MB by the end of
 * bench/run.ts, its young-generation collections took 6–24 ms each, and the paced client counted
 * those pauses (about one every 585 ms) as server latency.
 */
export function detached(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}
