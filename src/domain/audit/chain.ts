import { sha256 } from '../sha256.ts';

/**
 * The per-client hash chain of the audit store, with RFC 6962's domain separation: a leaf is
 * SHA-256(0x00 ‖ canonical row) (see leafHash), a link is SHA-256(0x01 ‖ previous link ‖ leaf). Changing any
 * stored field changes its leaf; deleting or reordering rows breaks the links after it.
 */
export const GENESIS = Buffer.alloc(32);

/** The fields of an evaluation row that its hash covers, in a fixed order. */
export interface ChainedFields {
  client_id: string;
  chain_seq: number;
  evaluation_id: string;
  evaluated_at: string;
  trigger_type: string;
  trigger_entity_type: string | null;
  trigger_entity_id: string | null;
  customer_id: string | null;
  rule_set_version: string;
  high_risk_list_date: string | null;
  evaluator_id: string;
  rules_evaluated: number;
  rules_triggered: number;
  transaction_blocked: boolean;
  alert_generated: boolean;
  case_created: boolean;
  highest_severity: string | null;
  rule_ids: readonly string[];
  /** The stored request and response JSON texts, byte for byte. */
  request: string;
  response: string;
}

/**
 * The canonical header of a row: a JSON array of its scalar fields in a fixed order. The request and
 * response texts follow it in the leaf, length-prefixed (see leafHash), not inside this JSON: they
 * are kilobytes of JSON themselves, and escaping them again for every row cost more than hashing.
 */
export function canonicalHeader(f: ChainedFields): string {
  return JSON.stringify([
    'mica-audit-v2',
    f.client_id,
    f.chain_seq,
    f.evaluation_id,
    f.evaluated_at,
    f.trigger_type,
    f.trigger_entity_type,
    f.trigger_entity_id,
    f.customer_id,
    f.rule_set_version,
    f.high_risk_list_date,
    f.evaluator_id,
    f.rules_evaluated,
    f.rules_triggered,
    f.transaction_blocked,
    f.alert_generated,
    f.case_created,
    f.highest_severity,
    f.rule_ids,
  ]);
}

/**
 * SHA-256(0x00 ‖ header ‖ len(request) ‖ request ‖ len(response) ‖ response), lengths as 32-bit
 * big-endian byte counts of the UTF-8 texts. The header is a JSON array, so it ends unambiguously;
 * the length prefixes make the two texts unambiguous too. The leaf is laid out in one buffer and
 * hashed in one call (see sha256.ts).
 */
export function leafHash(f: ChainedFields): Buffer {
  const header = canonicalHeader(f);
  const headerBytes = Buffer.byteLength(header, 'utf8');
  const requestBytes = Buffer.byteLength(f.request, 'utf8');
  const responseBytes = Buffer.byteLength(f.response, 'utf8');
  const size = 1 + headerBytes + 4 + requestBytes + 4 + responseBytes;
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  let at = scratch.writeUInt8(0, 0);
  at += scratch.write(header, at, 'utf8');
  at = scratch.writeUInt32BE(requestBytes, at);
  at += scratch.write(f.request, at, 'utf8');
  at = scratch.writeUInt32BE(responseBytes, at);
  scratch.write(f.response, at, 'utf8');
  return sha256(scratch.subarray(0, size));
}

/**
 * The leaf is laid out in one buffer kept from call to call (it is hashed before leafHash returns):
 * a new buffer of a few kilobytes per audit row was a steady share of the garbage of every request.
 */
let scratch = Buffer.allocUnsafe(16 * 1024);

/** SHA-256(0x01 ‖ previous ‖ leaf). */
export function linkHash(previous: Uint8Array, leaf: Uint8Array): Buffer {
  const link = Buffer.allocUnsafe(1 + previous.length + leaf.length);
  link[0] = 1;
  link.set(previous, 1);
  link.set(leaf, 1 + previous.length);
  return sha256(link);
}

export interface ChainBreak {
  chain_seq: number;
  evaluation_id: string | null;
  /**
   * `mark_not_retention`: the retention mark the walk would start from cannot have been written by
   * retention (its cutoff is within the shortest retention period, a row it left is older than its
   * cutoff, or a checkpoint shows rows it covers were written after its cutoff).
   * `duplicate_seq`: a second row at a position the walk had verified (the one named is the extra).
   * `outside_chain`: a row at or below the position the walk starts after, which no link covers.
   */
  reason:
    | 'content_changed'
    | 'link_broken'
    | 'row_missing'
    | 'head_mismatch'
    | 'mark_not_retention'
    | 'duplicate_seq'
    | 'outside_chain';
}

/**
 * Walks stored rows in chain order from an anchor (the genesis, or the link before the first row
 * kept after retention) and returns the first break, or null.
 */
export function findFirstBreak(
  rows: Iterable<ChainedFields & { prev_hash: Uint8Array; row_hash: Uint8Array }>,
  anchor: { seq: number; hash: Uint8Array },
): { break: ChainBreak | null; last: { seq: number; hash: Buffer } } {
  let expectedSeq = anchor.seq + 1;
  let prev: Buffer = Buffer.from(anchor.hash);
  for (const row of rows) {
    // Rows come ordered by position: one below the expected is a second row where one was verified.
    if (row.chain_seq < expectedSeq)
      return {
        break: { chain_seq: row.chain_seq, evaluation_id: row.evaluation_id, reason: 'duplicate_seq' },
        last: { seq: expectedSeq - 1, hash: prev },
      };
    if (row.chain_seq !== expectedSeq)
      return {
        break: { chain_seq: expectedSeq, evaluation_id: null, reason: 'row_missing' },
        last: { seq: expectedSeq - 1, hash: prev },
      };
    if (!prev.equals(Buffer.from(row.prev_hash)))
      return {
        break: { chain_seq: row.chain_seq, evaluation_id: row.evaluation_id, reason: 'link_broken' },
        last: { seq: expectedSeq - 1, hash: prev },
      };
    const link = linkHash(prev, leafHash(row));
    if (!link.equals(Buffer.from(row.row_hash)))
      return {
        break: { chain_seq: row.chain_seq, evaluation_id: row.evaluation_id, reason: 'content_changed' },
        last: { seq: expectedSeq - 1, hash: prev },
      };
    prev = link;
    expectedSeq++;
  }
  return { break: null, last: { seq: expectedSeq - 1, hash: prev } };
}
