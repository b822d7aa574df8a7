import { type Kysely, sql } from 'kysely';

/**
 * Splits a script into statements at semicolons, ignoring those inside quotes, dollar-quoted
 * bodies ($fn$ … $fn$) and `--` comments. PGlite's extended protocol takes one statement per call.
 */
export function splitStatements(script: string): string[] {
  const out: string[] = [];
  let current = '';
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (c === '-' && script[i + 1] === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end;
      continue;
    }
    if (c === "'") {
      const end = script.indexOf("'", i + 1);
      current += script.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(script.slice(i))?.[0];
      if (tag) {
        const end = script.indexOf(tag, i + tag.length);
        current += script.slice(i, end + tag.length);
        i = end + tag.length;
        continue;
      }
    }
    if (c === ';') {
      if (current.trim()) out.push(current.trim());
      current = '';
    } else current += c;
    i++;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** Runs a script statement by statement. */
export async function runStatements(db: Kysely<unknown>, script: string): Promise<void> {
  for (const statement of splitStatements(script)) await sql.raw(statement).execute(db);
}
