import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/storage/db.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';
import { type ServerProcess, startServerProcess, tempDataDir } from '../helpers/server-process.ts';
import { completeBody, fixturePath } from '../helpers/travel-rule.ts';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mica <args>` as the operator would, against the store of `dataDir`. */
function runCli(args: string[], dataDir: string): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, MICA_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  if (TEST_DATABASE_URL) env.DATABASE_URL = TEST_DATABASE_URL;
  else delete env.DATABASE_URL;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Reads the store the CLI wrote (only while no server holds an embedded store). */
async function withStore<T>(
  dataDir: string,
  read: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>,
) {
  const handle = await openDatabase(TEST_DATABASE_URL ? { databaseUrl: TEST_DATABASE_URL } : { dataDir });
  try {
    return await read(handle);
  } finally {
    await handle.close();
  }
}

describe('mica casps import', () => {
  const dataDir = tempDataDir();
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.stop();
  });

  it('imports a CSV directly into the store, audited, and prints JSON', async () => {
    if (TEST_DATABASE_URL) await (await freshDatabase()).close();
    const run = await runCli(['casps', 'import', fixturePath('casp_directory.csv')], dataDir);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.source, 'casp_directory.csv');
    assert.equal(out.rows, 3);
    assert.match(out.sha256, /^[0-9a-f]{64}$/);
    assert.equal(typeof out.version, 'number');
    assert.match(out.imported_at, /Z$/);

    const { rows, audit } = await withStore(dataDir, async ({ db }) => ({
      rows: await db.selectFrom('casp_directory').selectAll().orderBy('lei').execute(),
      audit: await db
        .selectFrom('operator_audit')
        .selectAll()
        .where('action', '=', 'casps.imported')
        .execute(),
    }));
    assert.deepEqual(
      rows.map((r) => [r.lei, r.country]),
      [
        ['213800KUD8LAJWSQ9D15', 'GB'],
        ['506700GE1G29325QX363', 'CH'],
        ['6SHGI4ZSSLCXXQSBB395', 'US'],
      ],
    );
    // Extra columns are kept.
    assert.deepEqual(rows[1]?.extra, { website: 'https://www.gleif.org' });
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.subject, 'casp_directory.csv');
    assert.equal((audit[0]?.detail as { rows?: number } | undefined)?.rows, 3);
  });

  it('refuses a bad CSV or a missing file with a JSON error and exit 1', async () => {
    const bad = join(dataDir, 'bad.csv');
    writeFileSync(bad, 'lei,name,country\n549300NRE2M9GQ3DTH09,Broken,DE\n');
    const run = await runCli(['casps', 'import', bad], dataDir);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(JSON.parse(run.stderr).error, /invalid LEI on line 2/);

    // A Latin-1 export (é as the single byte E9) is refused, not stored with U+FFFD for its letters.
    const latin1 = join(dataDir, 'latin1.csv');
    writeFileSync(latin1, Buffer.from('lei,name,country\n506700GE1G29325QX363,Gl\xe9if,CH\n', 'latin1'));
    const notText = await runCli(['casps', 'import', latin1], dataDir);
    assert.equal(notText.code, 1);
    assert.match(JSON.parse(notText.stderr).error, /latin1\.csv is not a text file .*save it as UTF-8/);

    const missing = await runCli(['casps', 'import', join(dataDir, 'nope.csv')], dataDir);
    assert.equal(missing.code, 1);
    assert.match(JSON.parse(missing.stderr).error, /cannot read .*nope\.csv: ENOENT/);
    // That the directory was kept is seen by the server below (GLEIF still verified).
  });

  it('while a server runs, an import reaches it and changes its answers', async () => {
    server = await startServerProcess({
      MICA_DATA_DIR: dataDir,
      MICA_DEMO_SEED: 'true',
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
    });
    const key = await server.demoKey();
    assert.ok(key, `demo key printed: ${server.stdout()}`);
    const verified = async () => {
      // A new transfer id each time: the answer must not come from the cache.
      const res = await fetch(`${server!.url}/api/mica/travel-rule-validation`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(completeBody(`tr-cli-${randomBytes(6).toString('hex')}`)),
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { validation_result: { counterparty_verified: boolean } })
        .validation_result.counterparty_verified;
    };
    assert.equal(await verified(), true);

    // A directory without GLEIF. Embedded: the CLI goes through the server's operator API (the
    // store is locked by the server). PostgreSQL: the CLI writes directly and the server notices
    // the new version within seconds.
    const smaller = join(dataDir, 'smaller.csv');
    writeFileSync(smaller, 'lei,name,country\n6SHGI4ZSSLCXXQSBB395,Citigroup Inc.,US\n');
    const run = await runCli(['casps', 'import', smaller, '--source', 'esma-register-2025-06'], dataDir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).source, 'esma-register-2025-06');
    assert.equal(JSON.parse(run.stdout).rows, 1);

    const deadline = Date.now() + 15_000;
    while ((await verified()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    assert.equal(await verified(), false);
  });
});
