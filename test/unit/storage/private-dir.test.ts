import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../../src/storage/db.ts';
import { ensurePrivateDir } from '../../../src/storage/private-dir.ts';

const root = mkdtempSync(join(tmpdir(), 'mica-private-'));
after(() => rmSync(root, { recursive: true, force: true }));
const modeOf = (p: string) => statSync(p).mode & 0o777;

describe('the embedded store’s directories', () => {
  it('are created for their owner only, parents included', () => {
    const dir = join(root, 'a', 'b');
    ensurePrivateDir(dir);
    assert.equal(modeOf(dir), 0o700);
  });

  it('the engine’s own is closed when found open to others; one the operator chose keeps its mode', () => {
    const dir = join(root, 'open');
    ensurePrivateDir(dir);
    chmodSync(dir, 0o750);
    ensurePrivateDir(dir);
    assert.equal(modeOf(dir), 0o750);
    ensurePrivateDir(dir, { close: true });
    assert.equal(modeOf(dir), 0o700);
  });

  it('hold the engine’s files out of other users’ reach', async () => {
    const dataDir = join(root, 'data');
    ensurePrivateDir(join(dataDir, 'pgdata'));
    chmodSync(join(dataDir, 'pgdata'), 0o777);
    const handle = await openDatabase({ dataDir });
    await handle.close();
    assert.equal(modeOf(dataDir), 0o700);
    assert.equal(modeOf(join(dataDir, 'pgdata')), 0o700);
  });
});
