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
 * month without a partition go to the default partition, so a missed run loses nothing. The DDL
 * runs in a SECURITY DEFINER function (migration 006), so the restricted application role can
 * create partitions without owning the table.
 */
export async function ensureMonthlyPartitions(
  db: Db,
  now: Date,
  opts: {
    monthsBack?: number;
    monthsAhead?: number;
    /**
     * Told of a month whose partition could not be made, and the next month is tried: its rows
     * stay in the default partition (a month whose rows already landed there, when partitions were
     * not made ahead for months, cannot be split off it). Without it the first failure is thrown.
     */
    onError?: (partition: string, err: unknown) => void;
  } = {},
): Promise<string[]> {
  const created: string[] = [];
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  for (let k = -(opts.monthsBack ?? 1); k <= (opts.monthsAhead ?? 3); k++) {
    const from = monthStart(y, m + k);
    try {
      const res = await sql<{ created: boolean }>`
        SELECT mica_create_audit_partition(${from.toISOString().slice(0, 10)}::date) AS created`.execute(db);
      if (res.rows[0]?.created) created.push(partitionName(from));
    } catch (err) {
      if (!opts.onError) throw err;
      opts.onError(partitionName(from), err);
    }
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

/**
 * Detaches and drops one partition that retention has emptied: dropping a month is not a row
 * DELETE. Through a SECURITY DEFINER function that refuses partitions younger than a year or
 * still holding rows (migration 006).
 */
export async function dropPartition(db: Db, name: string): Promise<void> {
  if (!/^evaluations_p\d{4}_\d{2}$/.test(name)) throw new Error(`not an evaluations partition: ${name}`);
  await sql`SELECT mica_drop_audit_partition(${name})`.execute(db);
}
