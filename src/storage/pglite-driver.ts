import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import { InFlight } from './in-flight.ts';

/** An error raised by the embedded database, with PostgreSQL's SQLSTATE code kept. */
export class EmbeddedDbError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/**
 * The embedded PostgreSQL on a worker thread. Queries cross as messages; values are
 * structured-cloned (Date, Uint8Array, numbers survive as they are).
 */
export class PGliteWorkerClient {
  #worker: Worker;
  /** Queries sent and not yet answered, under the id their answer comes back with. */
  #pending = new InFlight<{
    resolve: (r: { rows: unknown[]; affectedRows: number }) => void;
    reject: (e: Error) => void;
  }>();
  #ready: Promise<void>;
  #failed: Error | undefined;

  constructor(dataDir: string | undefined) {
    this.#worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { dataDir } });
    this.#ready = new Promise((resolve, reject) => {
      this.#worker.once('message', () => resolve());
      this.#worker.once('error', reject);
    });
    this.#worker.on(
      'message',
      (msg: {
        id?: number;
        ok?: boolean;
        rows?: unknown[];
        affectedRows?: number;
        error?: { message: string; code?: string; detail?: string };
      }) => {
        if (msg.id === undefined) return;
        const p = this.#pending.take(msg.id);
        if (!p) return;
        if (msg.ok) p.resolve({ rows: msg.rows ?? [], affectedRows: msg.affectedRows ?? 0 });
        else
          p.reject(
            new EmbeddedDbError(msg.error?.message ?? 'query failed', msg.error?.code, msg.error?.detail),
          );
      },
    );
    this.#worker.on('error', (e) => this.#failAll(e));
    this.#worker.on('exit', () => this.#failAll(new Error('embedded database stopped')));
  }

  #failAll(e: Error): void {
    this.#failed = e;
    for (const p of this.#pending.takeAll()) p.reject(e);
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  /** Runs a statement; with a name, as that named prepared statement (parsed and planned once). */
  query(
    sql: string,
    params: readonly unknown[],
    name?: string,
  ): Promise<{ rows: unknown[]; affectedRows: number }> {
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise((resolve, reject) => {
      const id = this.#pending.add({ resolve, reject });
      this.#worker.postMessage(
        name === undefined ? { type: 'query', id, sql, params } : { type: 'prepared', id, name, sql, params },
      );
    });
  }

  /** Stops the engine and its thread; safe to call more than once. */
  async close(): Promise<void> {
    if (this.#failed) return;
    this.#failed = new Error('embedded database stopped');
    await new Promise<void>((resolve) => {
      const id = this.#pending.add({ resolve: () => resolve(), reject: () => resolve() });
      this.#worker.postMessage({ type: 'close', id });
      setTimeout(resolve, 5000).unref();
    });
    await this.#worker.terminate();
  }
}

/**
 * One connection, taken in turn: a transaction (BEGIN … COMMIT) holds it, so no other query can
 * slip into it. (The embedded engine has a single session.)
 */
class ConnectionMutex {
  #locked = false;
  #waiters: Array<() => void> = [];
  async lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
  unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}

class WorkerConnection implements DatabaseConnection {
  constructor(readonly client: PGliteWorkerClient) {}
  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const res = await this.client.query(q.sql, q.parameters);
    return { rows: res.rows as R[], numAffectedRows: BigInt(res.affectedRows) };
  }
  // biome-ignore lint/correctness/useYield: the embedded engine cannot stream; this only throws.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the embedded database does not stream results');
  }
}

class WorkerDriver implements Driver {
  #mutex = new ConnectionMutex();
  #connection: WorkerConnection;
  /** Settles once the open transaction's COMMIT or ROLLBACK has been sent; unset when none is open. */
  #transaction: { sent: Promise<void>; end: () => void } | undefined;
  constructor(readonly client: PGliteWorkerClient) {
    this.#connection = new WorkerConnection(client);
  }
  async init(): Promise<void> {
    await this.client.ready();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    return this.#connection;
  }
  async beginTransaction(c: DatabaseConnection): Promise<void> {
    // Set before BEGIN is sent: from here on, pipelined statements wait for the transaction's end.
    let end!: () => void;
    const sent = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.#transaction = { sent, end };
    try {
      await c.executeQuery(CompiledQuery.raw('BEGIN'));
    } catch (e) {
      this.#endTransaction();
      throw e;
    }
  }
  async commitTransaction(c: DatabaseConnection): Promise<void> {
    await this.#finish(c, 'COMMIT');
  }
  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    await this.#finish(c, 'ROLLBACK');
  }
  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }
  async destroy(): Promise<void> {
    await this.client.close();
  }

  /** The engine runs messages in order: once COMMIT or ROLLBACK is sent, what follows runs after it. */
  async #finish(c: DatabaseConnection, statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const done = c.executeQuery(CompiledQuery.raw(statement));
    this.#endTransaction();
    await done;
  }

  #endTransaction(): void {
    this.#transaction?.end();
    this.#transaction = undefined;
  }

  /**
   * A statement on its own (autocommit), sent to the engine at once instead of waiting for the
   * session's previous caller to get its answer: the engine runs its messages in order, so it
   * starts the next statement as soon as it has finished one, however busy this thread is with
   * other work. Only a transaction in progress is waited for, so that nothing lands inside it.
   */
  async runPipelined(sql: string, params: readonly unknown[], name: string) {
    while (this.#transaction) await this.#transaction.sent;
    return this.client.query(sql, params, name);
  }
}

/**
 * Kysely dialect for the embedded PostgreSQL running on a worker thread, and `runPipelined`, which
 * sends a named prepared statement outside Kysely's turn-taking (see WorkerDriver.runPipelined).
 */
export function embeddedDialect(client: PGliteWorkerClient): {
  dialect: Dialect;
  runPipelined: (sql: string, params: readonly unknown[], name: string) => Promise<{ rows: unknown[] }>;
} {
  const driver = new WorkerDriver(client);
  return {
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    runPipelined: (sql, params, name) => driver.runPipelined(sql, params, name),
  };
}
