/**
 * SQLite write transactions must take the write lock when they begin. Kysely's SQLite
 * driver sends a plain (deferred) `begin`: a transaction that reads and then writes while
 * another process (a CLI command, a second tool) has written meanwhile fails at once with
 * "database is locked", because SQLite cannot let a stale snapshot upgrade and so does not
 * wait out the busy timeout. `begin immediate` waits (busy_timeout) for the lock instead.
 * One process has one connection, so this changes nothing inside a process.
 */
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver } from "kysely";

export function withImmediateTransactions(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      return {
        ...bindAll(driver),
        init: () => driver.init(),
        acquireConnection: () => driver.acquireConnection(),
        beginTransaction: async (conn: DatabaseConnection) => {
          await conn.executeQuery(CompiledQuery.raw("begin immediate"));
        },
        commitTransaction: (conn) => driver.commitTransaction(conn),
        rollbackTransaction: (conn) => driver.rollbackTransaction(conn),
        releaseConnection: (conn) => driver.releaseConnection(conn),
        destroy: () => driver.destroy(),
      };
    },
  };
}

/** The driver's optional methods (savepoints), bound to it. */
function bindAll(driver: Driver): Partial<Driver> {
  const out: Partial<Driver> = {};
  if (driver.savepoint) out.savepoint = driver.savepoint.bind(driver);
  if (driver.rollbackToSavepoint) out.rollbackToSavepoint = driver.rollbackToSavepoint.bind(driver);
  if (driver.releaseSavepoint) out.releaseSavepoint = driver.releaseSavepoint.bind(driver);
  return out;
}
