import { type Kysely, sql } from 'kysely';

/**
 * Runs a script statement by statement: PGlite's extended protocol takes one statement per call.
 * Statements are separated by a semicolon at the end of a line; `--` comment lines are dropped.
 */
export async function runStatements(db: Kysely<unknown>, script: string): Promise<void> {
  const statements = script
    .split(/;\s*$/m)
    .map((s) =>
      s
        .split('\n')
        .filter((line) => !line.trim().startsWith('--'))
        .join('\n')
        .trim(),
    )
    .filter(Boolean);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
