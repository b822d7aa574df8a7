import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { describe, it } from 'node:test';
import { freePort, startServerProcess, tempDataDir } from '../helpers/server-process.ts';

// The two ways people run this service, through npm itself: `npm run mica -- …` (black-box tests
// parse its output, CONTRACT §8) and `npm start` (stopped with a signal to npm, as process
// managers do).

describe('npm run mica and npm start', () => {
  it('npm run mica prints only the JSON (no npm banner on stdout)', () => {
    const r = spawnSync('npm', ['run', 'mica', '--', 'migrate'], {
      env: { ...process.env, MICA_DATA_DIR: tempDataDir(), DATABASE_URL: '', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotThrow(() => JSON.parse(r.stdout), r.stdout);
  });

  it('a SIGTERM to npm start stops the server (it drains, the port is freed)', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        MICA_DATA_DIR: tempDataDir(),
        DATABASE_URL: '',
        MICA_DEMO_SEED: 'false',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    const url = `http://127.0.0.1:${port}/healthz`;
    const up = async () => {
      try {
        return (await fetch(url)).ok;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 120_000;
    while (!(await up())) {
      assert.ok(Date.now() < deadline && npm.exitCode === null, 'npm start did not come up');
      await new Promise((r) => setTimeout(r, 200));
    }
    const exited = new Promise<number | null>((r) => npm.once('exit', (code) => r(code)));
    npm.kill('SIGTERM');
    await exited;
    const stopBy = Date.now() + 15_000;
    while (await up()) {
      assert.ok(Date.now() < stopBy, 'the server outlived npm: still answering 15 s after SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});

describe('the first start of an empty store', () => {
  it('a start that cannot listen does not use up the demo client and its key', async () => {
    const dataDir = tempDataDir();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const failed = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          MICA_DATA_DIR: dataDir,
          DATABASE_URL: '',
          REDIS_URL: '',
          MICA_DEMO_SEED: 'true',
          LOG_LEVEL: 'warn',
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.notEqual(failed.status, 0, 'the port was taken');
      assert.doesNotMatch(failed.stdout, /mica_live_/);
    } finally {
      blocker.close();
    }
    const server = await startServerProcess({
      MICA_DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      MICA_DEMO_SEED: 'true',
    });
    try {
      const key = await server.demoKey();
      assert.ok(key, `the demo key is printed on the first start that listens:\n${server.stdout()}`);
      const res = await fetch(`${server.url}/api/console/whoami`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.status, 200);
    } finally {
      await server.stop();
    }
  });
});
