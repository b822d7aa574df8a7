import { sql } from 'kysely';
import type { Db } from './db.ts';

function monthStart(year: number, month: number): Date {
  return new Date(Date.UTC(year, month, 1));
}

function partitionName(d: Date): string {
  return `evaluations_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * Creates the monthly partitions of `evaluations` around `now` that do not exist yet. Rows of a
 * month without a partition go to the default partition, so a missed run loses nothing.
 */
export async function ensureMonthlyPartitions(
  db: Db,
  now: Date,
  opts: { monthsBack?: number; monthsAhead?: number } = {},
): Promise<string[]> {
  const created: string[] = [];
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  for (let k = -(opts.monthsBack ?? 1); k <= (opts.monthsAhead ?? 3); k++) {
    const from = monthStart(y, m + k);
    const to = monthStart(y, m + k + 1);
    const name = partitionName(from);
    const exists = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM pg_class WHERE relname = ${name}`.execute(db);
    if (Number(exists.rows[0]?.n) > 0) continue;
    await db.transaction().execute(async (trx) => {
      await sql
        .raw(
          `CREATE TABLE ${name} PARTITION OF evaluations FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
        )
        .execute(trx);
      // Row triggers are cloned from the parent; a TRUNCATE trigger has to be set per partition.
      await sql
        .raw(
          `CREATE TRIGGER ${name}_no_truncate BEFORE TRUNCATE ON ${name} FOR EACH STATEMENT EXECUTE FUNCTION mica_refuse_audit_change()`,
        )
        .execute(trx);
    });
    created.push(name);
  }
  return created;
}

/** The monthly partitions with their upper bounds, oldest first. */
export async function listPartitions(db: Db): Promise<Array<{ name: string; to: Date }>> {
  const rows = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = 'evaluations' AND c.relname ~ '^evaluations_p[0-9]{4}_[0-9]{2}$'
     ORDER BY c.relname`.execute(db);
  return rows.rows.map((r) => {
    const [, y, mo] = /_p(\d{4})_(\d{2})$/.exec(r.name)!;
    return { name: r.name, to: monthStart(Number(y), Number(mo)) };
  });
}

/** Detaches and drops one partition (retention): dropping a month is not a row DELETE. */
export async function dropPartition(db: Db, name: string): Promise<void> {
  if (!/^evaluations_p\d{4}_\d{2}$/.test(name)) throw new Error(`not an evaluations partition: ${name}`);
  await sql.raw(`ALTER TABLE evaluations DETACH PARTITION ${name}`).execute(db);
  await sql.raw(`DROP TABLE ${name}`).execute(db);
}
