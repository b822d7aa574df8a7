// Hosts the embedded PostgreSQL (PGlite) on its own thread, so that SQL runs on the second core
// while the main thread serves HTTP. Plain JavaScript: a worker starts without the TS loader.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol } from '@electric-sql/pglite';

const db = await PGlite.create(workerData.dataDir ? { dataDir: workerData.dataDir } : {});
// Prepared statements keep one generic plan, as on PostgreSQL (see db.ts): the hot statements take
// whole batches as JSON parameters, whose values tell the planner nothing.
await db.exec('SET plan_cache_mode = force_generic_plan');
// A new WAL segment (every 16 MiB of changes) was written full of zeros first: 40-50 ms with the
// one session held, every second at full load. The engine runs without fsync, so preallocating
// the space on disk buys nothing here.
await db.exec('SET wal_init_zero = off');

function serialiseError(e) {
  return { message: e?.message ?? String(e), code: e?.code, detail: e?.detail, severity: e?.severity };
}

const { serialize } = protocol;

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
const NO_SYNC = { syncToFs: false };
/** Named statements of this session: name → parameter types and row description. */
const statements = new Map();

/**
 * Runs a statement by name, parsing and describing it only the first time. PGlite's query() parses,
 * analyses and plans its text on every call: for the batch statements (a dozen CTEs) that cost
 * more than executing a small batch. The protocol messages are those of query(), minus the
 * repeated Parse and Describe, and the run's three go into the engine in one call.
 */
async function runPrepared(name, text, params) {
  return db.runExclusive(async () => {
    let statement = statements.get(name);
    const messages = [];
    // Until the run (which carries its own Sync) is sent, an error leaves a Sync owed to the session.
    let owesSync = true;
    try {
      if (!statement) {
        try {
          await db.execProtocolStream(serialize.parse({ name, text }), NO_SYNC);
          const described = await db.execProtocolStream(serialize.describe({ type: 'S', name }), NO_SYNC);
          statement = {
            types: described.find((m) => m.name === 'parameterDescription')?.dataTypeIDs ?? [],
            rowDescription: described.find((m) => m.name === 'rowDescription'),
          };
        } catch (e) {
          // A statement that parsed but could not be described must not block its name.
          await db.execProtocolStream(serialize.close({ type: 'S', name }), NO_SYNC).catch(() => {});
          throw e;
        }
        statements.set(name, statement);
      }
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = db.serializers[statement.types[i]];
        return serializer ? serializer(v) : v.toString();
      });
      // Bind, Execute and Sync in one call into the engine: each call has a fixed cost. After an
      // error the engine skips to the Sync, so the session is ready again when this throws.
      const run = concat([
        serialize.bind({ statement: name, values }),
        serialize.execute({}),
        serialize.sync(),
      ]);
      if (statement.rowDescription) messages.push(statement.rowDescription);
      owesSync = false;
      messages.push(...(await db.execProtocolStream(run, NO_SYNC)));
    } finally {
      if (owesSync) await db.execProtocolStream(serialize.sync(), NO_SYNC);
    }
    await db.syncToFs();
    return parse.parseResults(messages, db.parsers)[0] ?? { rows: [], affectedRows: 0 };
  });
}

parentPort.on('message', async (msg) => {
  if (msg.type === 'query' || msg.type === 'prepared') {
    try {
      const res =
        msg.type === 'prepared'
          ? await runPrepared(msg.name, msg.sql, msg.params)
          : await db.query(msg.sql, msg.params);
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
