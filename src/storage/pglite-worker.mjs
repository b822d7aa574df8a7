// Hosts the embedded PostgreSQL (PGlite) on its own thread, so that SQL runs on the second core
// while the main thread serves HTTP. Plain JavaScript: a worker starts without the TS loader.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const db = await PGlite.create(workerData.dataDir ? { dataDir: workerData.dataDir } : {});

function serialiseError(e) {
  return { message: e?.message ?? String(e), code: e?.code, detail: e?.detail, severity: e?.severity };
}

parentPort.on('message', async (msg) => {
  if (msg.type === 'query') {
    try {
      const res = await db.query(msg.sql, msg.params);
      parentPort.postMessage({ id: msg.id, ok: true, rows: res.rows, affectedRows: res.affectedRows ?? 0 });
    } catch (e) {
      parentPort.postMessage({ id: msg.id, ok: false, error: serialiseError(e) });
    }
  } else if (msg.type === 'close') {
    try {
      await db.close();
    } finally {
      parentPort.postMessage({ id: msg.id, ok: true, rows: [], affectedRows: 0 });
      parentPort.close();
    }
  }
});
parentPort.postMessage({ ready: true });
