import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireStoreLock } from '../../../src/storage/store-lock.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mica-lock-'));
  dirs.push(d);
  return d;
};

/** A pid no process has (pid_max on Linux is at most 2^22). */
const DEAD_PID = 4_194_305;

// A child that takes the lock at an agreed instant, says whether it got it, holds it a moment.
const CONTENDER = `
import { acquireStoreLock } from ${JSON.stringify(new URL('../../../src/storage/store-lock.ts', import.meta.url).href)};
const [dir, at] = process.argv.slice(-2);
while (Date.now() < Number(at)) {}
try {
  const lock = acquireStoreLock(dir);
  process.stdout.write('held');
  setTimeout(() => lock.release(), 1500);
} catch (e) {
  process.stdout.write('refused: ' + e.message);
}
`;

function contend(dir: string, at: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      CONTENDER,
      dir,
      String(at),
    ]);
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', () => resolve(out));
  });
}

describe('embedded store lock', () => {
  it('is held by one process; a second is refused naming the owner; released, it can be taken again', () => {
    const dir = dataDir();
    const lock = acquireStoreLock(dir);
    assert.equal(readFileSync(join(dir, 'store.lock'), 'utf8'), String(process.pid));
    lock.release();
    const again = acquireStoreLock(dir);
    again.release();
  });

  it('takes over a lock left by a dead process, or one with no pid in it', () => {
    for (const left of [String(DEAD_PID), '', 'garbage']) {
      const dir = dataDir();
      writeFileSync(join(dir, 'store.lock'), left);
      const lock = acquireStoreLock(dir);
      assert.equal(readFileSync(join(dir, 'store.lock'), 'utf8'), String(process.pid));
      lock.release();
    }
  });

  it('refuses while a live process holds it', async () => {
    const dir = dataDir();
    const out = contend(dir, Date.now());
    await new Promise((r) => setTimeout(r, 1000));
    assert.throws(() => acquireStoreLock(dir), /in use by process \d+/);
    assert.equal(await out, 'held');
  });

  it('goes to exactly one of several processes starting at the same instant, also over a stale lock', async () => {
    for (const stale of [false, true]) {
      for (let round = 0; round < 2; round++) {
        const dir = dataDir();
        if (stale) writeFileSync(join(dir, 'store.lock'), String(DEAD_PID));
        const at = Date.now() + 1500;
        const outs = await Promise.all(Array.from({ length: 6 }, () => contend(dir, at)));
        const held = outs.filter((o) => o === 'held').length;
        assert.equal(held, 1, `stale ${stale}, round ${round}: ${JSON.stringify(outs)}`);
      }
    }
  });
});
