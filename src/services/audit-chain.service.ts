import { sql } from 'kysely';
import { type ChainBreak, type ChainedFields, findFirstBreak, GENESIS } from '../domain/audit/chain.ts';
import type { Db } from '../storage/db.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';
import { dropPartition, listPartitions } from '../storage/partitions.ts';
import { MIN_RETENTION_YEARS } from './client-settings.ts';

type StoredRow = ChainedFields & { prev_hash: Uint8Array; row_hash: Uint8Array };
/** Where a walk starts; `removedBefore` when it is a retention mark. */
type Anchor = { seq: number; hash: Uint8Array; removedBefore?: Date };
type Checkpoint = { seq: number; head: string; createdAt: Date };
/** A checkpoint as `audit checkpoints` exports it. */
export interface ExportedCheckpoint {
  seq: number;
  head_hash: string;
  created_at: string;
}

const PAGE = 2000;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * Tamper evidence of the audit store: verification of each client's hash chain, daily checkpoints
 * (head hash, count, time) to keep elsewhere, and retention that records where each chain resumes.
 */
export function createAuditChainService(deps: {
  db: Db;
  audit: Pick<OperatorAuditRepo, 'record'>;
  now?: () => Date;
}) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /**
   * Where the walk starts: the newest retention mark below the client's oldest stored row (or the
   * newest of all once no row is left), else the genesis. Retention removes every row up to its
   * mark, so a mark with rows still at or below it was not written by retention: the application
   * role may insert marks, and trusting such a one would skip the rows it covers unverified.
   */
  async function anchorOf(clientId: string): Promise<Anchor> {
    const mark = await sql<{ seq: string; hash: Uint8Array; removed_before: Date }>`
      SELECT seq, hash, removed_before FROM audit_retention_marks
       WHERE client_id = ${clientId}
         AND seq < coalesce((SELECT min(chain_seq) FROM evaluations WHERE client_id = ${clientId}),
                            9223372036854775807)
       ORDER BY seq DESC LIMIT 1`.execute(db);
    const m = mark.rows[0];
    return m
      ? { seq: Number(m.seq), hash: m.hash, removedBefore: new Date(m.removed_before) }
      : { seq: 0, hash: GENESIS };
  }

  /**
   * Whether the anchor's mark can have been written by retention (retention-functions.ts): its cutoff
   * lies at least the shortest retention period back; the first row it left is not older than its
   * cutoff (retention stops before the first row at or after it); and no checkpoint below it was
   * taken a day or more after its cutoff (the rows after such a checkpoint were written later, so
   * they were not due). Checkpoints: the stored ones and any exported copies the caller gives. Rows removed
   * cannot be checked, so a mark dated far enough back stays possible to forge for whoever may
   * delete rows with triggers off; the checkpoints kept elsewhere are what bound it.
   */
  function markProblem(
    anchor: Anchor,
    firstRow: { chain_seq: number; evaluated_at: string } | undefined,
    checkpoints: Checkpoint[],
  ): ChainBreak | null {
    const cutoff = anchor.removedBefore;
    if (!cutoff) return null;
    const latest = new Date(now());
    latest.setUTCFullYear(latest.getUTCFullYear() - MIN_RETENTION_YEARS);
    const problem = { chain_seq: anchor.seq, evaluation_id: null, reason: 'mark_not_retention' } as const;
    // A day of slack, as the database function allows for clock differences.
    if (cutoff.getTime() > latest.getTime() + 86_400_000) return problem;
    if (
      firstRow &&
      firstRow.chain_seq === anchor.seq + 1 &&
      Date.parse(firstRow.evaluated_at) < cutoff.getTime()
    )
      return problem;
    // A day of slack here too: a row's time is the server's when it decided, a checkpoint's the
    // database's when it was taken, and a row decided just before a checkpoint may commit after it.
    for (const cp of checkpoints)
      if (cp.seq < anchor.seq && cp.createdAt.getTime() >= cutoff.getTime() + 86_400_000) return problem;
    return null;
  }

  /** Stored checkpoints of a client, oldest first. */
  async function storedCheckpoints(clientId: string): Promise<Checkpoint[]> {
    const rows = await sql<{ seq: string; head: Uint8Array; created_at: Date }>`
      SELECT seq, head, created_at FROM audit_checkpoints WHERE client_id = ${clientId} ORDER BY seq`.execute(
      db,
    );
    return rows.rows.map((r) => ({
      seq: Number(r.seq),
      head: hex(r.head),
      createdAt: new Date(r.created_at),
    }));
  }

  async function* rowsOf(clientId: string, afterSeq: number): AsyncGenerator<StoredRow> {
    // Pages are keyed by position and id: a second row at one position (a forged copy) must not
    // fall between two pages unseen.
    let after = { seq: afterSeq, id: null as string | null };
    for (;;) {
      const page = await sql<StoredRow & { chain_seq: string }>`
        SELECT client_id, chain_seq, evaluation_id::text AS evaluation_id,
               to_char(evaluated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS evaluated_at,
               trigger_type, trigger_entity_type, trigger_entity_id, customer_id, rule_set_version,
               high_risk_list_date, evaluator_id, rules_evaluated, rules_triggered, transaction_blocked,
               alert_generated, case_created, highest_severity, rule_ids, request::text AS request,
               response::text AS response, prev_hash, row_hash
          FROM evaluations
         WHERE client_id = ${clientId} AND chain_seq >= ${after.seq}
           AND (chain_seq > ${after.seq} OR evaluation_id > ${after.id}::uuid)
         ORDER BY chain_seq, evaluation_id LIMIT ${PAGE}`.execute(db);
      for (const r of page.rows) yield { ...r, chain_seq: Number(r.chain_seq) };
      if (page.rows.length < PAGE) return;
      const last = page.rows.at(-1)!;
      after = { seq: Number(last.chain_seq), id: last.evaluation_id };
    }
  }

  /**
   * A row at or below the anchor: no link covers it, so the walk would pass it by (a row inserted
   * with position 0 or less through the application role, before the constraint of migration 023).
   */
  async function outsideChain(clientId: string, anchorSeq: number): Promise<ChainBreak | null> {
    const row = (
      await sql<{ chain_seq: string; evaluation_id: string }>`
        SELECT chain_seq, evaluation_id::text AS evaluation_id FROM evaluations
         WHERE client_id = ${clientId} AND chain_seq <= ${anchorSeq}
         ORDER BY chain_seq, evaluation_id LIMIT 1`.execute(db)
    ).rows[0];
    return row
      ? { chain_seq: Number(row.chain_seq), evaluation_id: row.evaluation_id, reason: 'outside_chain' }
      : null;
  }

  /**
   * The first checkpoint that no longer holds: one above the anchor whose row is gone or has another
   * hash, or one at the anchor with another hash than the mark's. `walked`: the hash of every row
   * the walk verified at a checkpoint's position (a complete walk: none is read again).
   */
  function checkpointBreak(
    anchor: Anchor,
    checkpoints: Checkpoint[],
    walked: Map<number, string>,
    headSeq: number,
  ) {
    for (const cp of checkpoints) {
      if (cp.seq < anchor.seq) continue;
      // The checkpoint vouches for rows past the last one stored: the first of them is missing.
      if (cp.seq > headSeq)
        return { chain_seq: headSeq + 1, evaluation_id: null, reason: 'row_missing' } satisfies ChainBreak;
      const stored = cp.seq === anchor.seq ? hex(anchor.hash) : walked.get(cp.seq);
      if (stored !== cp.head)
        return { chain_seq: cp.seq, evaluation_id: null, reason: 'head_mismatch' } satisfies ChainBreak;
    }
    return null;
  }

  return {
    /**
     * Walks the client's chain and reports the first broken link, or ok with the count and head.
     * `external`: checkpoints exported earlier and kept outside this database (`audit checkpoints`):
     * each must still hold (its row stored with its hash, or removed by a retention mark that fits
     * it), which the stored checkpoints cannot vouch for once someone able to change the database
     * has changed them too.
     */
    async verify(clientId: string, external: ExportedCheckpoint[] = []) {
      const anchor = await anchorOf(clientId);
      const checkpoints = [
        ...(await storedCheckpoints(clientId)),
        ...external.map((c) => ({
          seq: c.seq,
          head: c.head_hash.toLowerCase(),
          createdAt: new Date(c.created_at),
        })),
      ].sort((a, b) => a.seq - b.seq);
      // Buffer the walk page by page: findFirstBreak is synchronous over an iterable.
      let brk: ChainBreak | null = null;
      let last: { seq: number; hash: Buffer } = { seq: anchor.seq, hash: Buffer.from(anchor.hash) };
      let firstRow: StoredRow | undefined;
      const atCheckpoint = new Set(checkpoints.map((c) => c.seq));
      const walked = new Map<number, string>();
      const pending: StoredRow[] = [];
      const flush = () => {
        const res = findFirstBreak(pending.splice(0), { seq: last.seq, hash: last.hash });
        brk = res.break;
        last = res.last;
      };
      for await (const row of rowsOf(clientId, anchor.seq)) {
        firstRow ??= row;
        if (atCheckpoint.has(row.chain_seq)) walked.set(row.chain_seq, hex(row.row_hash));
        pending.push(row);
        if (pending.length >= PAGE) {
          flush();
          if (brk) break;
        }
      }
      if (!brk) flush();
      brk = (await outsideChain(clientId, anchor.seq)) ?? brk;
      // A forged mark is reported before anything found above it: the walk started in the wrong place.
      brk = markProblem(anchor, firstRow, checkpoints) ?? brk;
      const head = (
        await sql<{ seq: string; head: Uint8Array }>`
          SELECT seq, head FROM audit_chain_heads WHERE client_id = ${clientId}`.execute(db)
      ).rows[0];
      if (!brk && head && (Number(head.seq) !== last.seq || hex(head.head) !== last.hash.toString('hex')))
        brk = {
          chain_seq: Number(head.seq) === last.seq ? last.seq : last.seq + 1,
          evaluation_id: null,
          // The recorded head names a row that is not there, or another hash for the last row.
          reason: Number(head.seq) === last.seq ? 'head_mismatch' : 'row_missing',
        } satisfies ChainBreak;
      if (!brk) brk = checkpointBreak(anchor, checkpoints, walked, last.seq);
      return {
        client_id: clientId,
        ok: brk === null,
        rows_verified: last.seq - anchor.seq,
        anchor_seq: anchor.seq,
        // The walk's end: the head when ok; at a break, the last link verified before it, so the
        // recorded head is given beside it (a reader took head_seq for the chain's length).
        head_seq: last.seq,
        head_hash: last.hash.toString('hex'),
        recorded_head_seq: head ? Number(head.seq) : 0,
        ...(external.length > 0 ? { external_checkpoints: external.length } : {}),
        first_break: brk,
      };
    },

    /** Writes a checkpoint (head hash, count, time) for one client or every client with rows. */
    async checkpoint(clientId?: string) {
      const rows = await sql<{ client_id: string; seq: string; head: Uint8Array; created_at: Date }>`
        INSERT INTO audit_checkpoints (client_id, seq, head)
        SELECT client_id, seq, head FROM audit_chain_heads
         WHERE seq > 0 AND (${clientId ?? null}::text IS NULL OR client_id = ${clientId ?? null})
        RETURNING client_id, seq, head, created_at`.execute(db);
      return rows.rows.map((r) => ({
        client_id: r.client_id,
        seq: Number(r.seq),
        head_hash: hex(r.head),
        created_at: new Date(r.created_at).toISOString(),
      }));
    },

    /** Every checkpoint of a client, to be exported and kept outside this database. */
    async checkpoints(clientId: string) {
      return (await storedCheckpoints(clientId)).map((c) => ({
        client_id: clientId,
        seq: c.seq,
        head_hash: c.head,
        created_at: c.createdAt.toISOString(),
      }));
    },

    /**
     * Removes audit rows past each client's retention: whole monthly partitions once every client's
     * period has passed them, single rows for clients with a shorter period. Where a chain now
     * starts is recorded first, so verification resumes from there. Nothing younger than a year is
     * removable (the database refuses it).
     */
    async retention(retentionYearsOf: (clientId: string) => Promise<number>, actor = 'system:retention') {
      const at = now();
      const clients = (await sql<{ client_id: string }>`SELECT client_id FROM audit_chain_heads`.execute(db))
        .rows;
      const cutoffs = new Map<string, Date>();
      for (const { client_id } of clients) {
        const years = await retentionYearsOf(client_id);
        const c = new Date(at);
        c.setUTCFullYear(c.getUTCFullYear() - years);
        cutoffs.set(client_id, c);
      }
      const removed: Array<{ client_id: string; rows: number; before: string }> = [];
      const failed: Array<{ client_id: string; reason: string }> = [];
      for (const [clientId, cutoff] of cutoffs) {
        // One statement: the SECURITY DEFINER function (migration 006) records the retention mark
        // and deletes in one go, so the restricted application role never holds DELETE itself.
        // One client's failure is recorded; the others' retention still runs.
        try {
          const res = await sql<{ n: number }>`
            SELECT mica_retention_delete(${clientId}, ${cutoff}) AS n`.execute(db);
          const n = Number(res.rows[0]?.n ?? 0);
          if (n > 0) removed.push({ client_id: clientId, rows: n, before: cutoff.toISOString() });
        } catch (err) {
          failed.push({ client_id: clientId, reason: err instanceof Error ? err.message : String(err) });
        }
      }
      // Partitions now empty for every client (all older than every cutoff) are dropped.
      const oldest = [...cutoffs.values()].reduce<Date | undefined>(
        (m, c) => (!m || c < m ? c : m),
        undefined,
      );
      const dropped: string[] = [];
      const kept: Array<{ name: string; reason: string }> = [];
      if (oldest)
        for (const p of await listPartitions(db))
          if (p.to <= oldest) {
            try {
              await dropPartition(db, p.name);
              dropped.push(p.name);
            } catch (err) {
              // Refused by the database (rows left, too young): kept, and said so in the record.
              kept.push({ name: p.name, reason: err instanceof Error ? err.message : String(err) });
            }
          }
      const result = {
        ran_at: at.toISOString(),
        removed,
        ...(failed.length > 0 ? { failed } : {}),
        dropped_partitions: dropped,
        ...(kept.length > 0 ? { kept_partitions: kept } : {}),
      };
      await deps.audit.record({
        client_id: null,
        actor,
        action: 'audit.retention',
        subject: null,
        detail: result,
      });
      // Each client whose trail lost rows (or whose retention failed) has it in its own log too:
      // asked what happened to one client's trail, the operator log answers.
      for (const r of [...removed, ...failed])
        await deps.audit.record({
          client_id: r.client_id,
          actor,
          action: 'audit.retention',
          subject: r.client_id,
          detail: { ran_at: result.ran_at, ...r },
        });
      return result;
    },
  };
}
export type AuditChainService = ReturnType<typeof createAuditChainService>;
