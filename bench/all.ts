import { spawn } from 'node:child_process';
import { ROOT } from './processes.ts';

/**
 * `npm run bench:all`: every benchmark, one after the other (never two at once: they would share
 * the two cores), each writing its own section of RESULTS.md. Runs them all even when one fails;
 * exits non-zero when any did. The evaluation bench (run.ts) runs first, as `npm run bench` would.
 */
const BENCHES = ['run.ts', 'screening.ts', 'travel-rule.ts', 'webhooks.ts', 'export.ts', 'list-import.ts'];

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const failed: string[] = [];
for (const file of BENCHES) {
  if (only && !only.some((o) => file.startsWith(o))) continue;
  process.stdout.write(`\n=== bench/${file} ===\n`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/${file}`], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    child.on('exit', (c) => resolve(c));
  });
  if (code !== 0) failed.push(`bench/${file} exited with ${code}`);
}
for (const f of failed) process.stdout.write(`FAIL: ${f}\n`);
process.exit(failed.length === 0 ? 0 : 1);
