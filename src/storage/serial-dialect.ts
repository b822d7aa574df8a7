import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/**
 * PGlite is one database session. Its Kysely driver hands that session to every caller at once,
 * so two concurrent transactions would interleave on it: the second BEGIN is ignored, one COMMIT
 * commits the other's half-done work, one ROLLBACK undoes it. This wrapper lends the session to
 * one caller at a time (a whole transaction, or one query), which is what a pool of size one does.
 */
export function serialiseConnections(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => serialDriver(dialect.createDriver()),
  };
}

function serialDriver(driver: Driver): Driver {
  let tail: Promise<void> = Promise.resolve();
  const releases = new WeakMap<DatabaseConnection, () => void>();
  return {
    init: () => driver.init(),
    destroy: () => driver.destroy(),
    async acquireConnection() {
      let release!: () => void;
      const previous = tail;
      tail = new Promise<void>((resolve) => {
        release = resolve;
      });
      await previous;
      try {
        const connection = await driver.acquireConnection();
        releases.set(connection, release);
        return connection;
      } catch (e) {
        release();
        throw e;
      }
    },
    beginTransaction: (c, settings) => driver.beginTransaction(c, settings),
    commitTransaction: (c) => driver.commitTransaction(c),
    rollbackTransaction: (c) => driver.rollbackTransaction(c),
    async releaseConnection(connection) {
      try {
        await driver.releaseConnection(connection);
      } finally {
        releases.get(connection)?.();
        releases.delete(connection);
      }
    },
  };
}
