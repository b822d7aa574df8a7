// Hosts the embedded PostgreSQL (PGlite) on its own thread, so that SQL runs on the second core
// while the main thread serves HTTP. Plain JavaScript: a worker starts without the TS loader.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol } from '@electric-sql/pglite';

const db = await PGlite.create(workerData.dataDir ? { dataDir: workerData.dataDir } : {});
// One generic plan per statement, as the service's PostgreSQL sessions use (see db.ts): the hot
// statements take whole batches as JSON parameters, whose values tell the planner nothing.
await db.exec('SET plan_cache_mode = force_generic_plan');
// A new WAL segment (every 16 MiB of changes) was written full of zeros first: 40-50 ms with the
// one session held, every second at full load. The engine runs without fsync, so preallocating
// the space on disk buys nothing here.
await db.exec('SET wal_init_zero = off');
// As the service's PostgreSQL sessions (db.ts): no JIT compilation of costly-looking plans.
await db.exec('SET jit = off');

function serialiseError(e) {
  return { message: e?.message ?? String(e), code: e?.code, detail: e?.detail, severity: e?.severity };
}

const { serialize } = protocol;

/**
 * Bind (unnamed portal, text parameters and results), Execute and Sync of a named statement, written
 * into one buffer kept from call to call. The protocol library allocated a new, doubling buffer per
 * message: with batches of tens of kilobytes that was some 100 MB/s of external memory at full
 * load, and V8 answered with two full collections a second on this thread (7 ms pauses each).
 */
const encoder = new TextEncoder();
let out = new Uint8Array(64 * 1024);
function bindExecuteSync(name, texts) {
  // At most 3 bytes of UTF-8 per UTF-16 unit; the buffer grows (and stays grown) when needed.
  let need = 64 + name.length * 3;
  for (const t of texts) need += 4 + (t === null ? 0 : t.length * 3);
  if (out.length < need) out = new Uint8Array(Math.max(need, out.length * 2));
  const view = new DataView(out.buffer);
  let at = 0;
  const cstring = (str) => {
    at += encoder.encodeInto(str, out.subarray(at)).written;
    out[at++] = 0;
  };
  out[at++] = 0x42; // 'B'
  const bindLength = at;
  at += 4;
  cstring(''); // portal
  cstring(name);
  view.setInt16(at, 0); // parameter formats: all text
  view.setInt16(at + 2, texts.length);
  at += 4;
  for (const t of texts) {
    if (t === null) {
      view.setInt32(at, -1);
      at += 4;
      continue;
    }
    const lengthAt = at;
    at += 4;
    at += encoder.encodeInto(t, out.subarray(at)).written;
    view.setInt32(lengthAt, at - lengthAt - 4);
  }
  view.setInt16(at, 0); // result formats: all text
  at += 2;
  view.setInt32(bindLength, at - bindLength);
  out[at++] = 0x45; // 'E'
  view.setInt32(at, 9);
  at += 4;
  out[at++] = 0; // portal
  view.setInt32(at, 0); // all rows
  at += 4;
  out[at++] = 0x53; // 'S'
  view.setInt32(at, 4);
  at += 4;
  return out.subarray(0, at);
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
  let statement = statements.get(name);
  let results = [];
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
    // Parameters as text, as query() sends them.
    const texts = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = db.serializers[statement.types[i]];
      return serializer ? serializer(v) : v.toString();
    });
    // Bind, Execute and Sync in one call into the engine: each call has a fixed cost. After an
    // error the engine skips to the Sync, so the session is ready again when this throws.
    owesSync = false;
    results = await db.execProtocolStream(bindExecuteSync(name, texts), NO_SYNC);
  } finally {
    if (owesSync) await db.execProtocolStream(serialize.sync(), NO_SYNC);
  }
  // The rows are read with the statement's own description (no Describe of the portal per run).
  const messages = statement.rowDescription ? [statement.rowDescription].concat(results) : results;
  return parse.parseResults(messages, db.parsers)[0] ?? { rows: [], affectedRows: 0 };
}

/**
 * Messages are handled one at a time, in the order they arrive, on a promise chain of our own: this
 * thread is the engine's only user once it has started, so that is all the exclusion it needs.
 * Not db.runExclusive() nor db.syncToFs() per statement: PGlite's lock runs each call through a
 * generator-based helper whose garbage outlives minor GCs (~0.6 MB per minor GC for SELECT 1 in a
 * loop, none with this chain), and syncToFs() only takes that lock around an empty method for
 * both file systems used here (the data directory on disk, whose writes go to the files during
 * the statement, and memory).
 */
let turn = Promise.resolve();
parentPort.on('message', (msg) => {
  // handle() answers every failure itself; the catch only keeps one unexpected throw from
  // stopping every later message.
  turn = turn.then(() => handle(msg)).catch((e) => console.error('embedded database thread:', e));
});

async function handle(msg) {
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
}
parentPort.postMessage({ ready: true });
