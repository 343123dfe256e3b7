/**
 * The test files whose outcome cannot depend on the database engine, run once: vitest.config.ts
 * leaves them out of the run on PostgreSQL (`PAYGATE_TEST_DATABASE=postgres`), the SQLite run
 * having run them. Free of imports, so that vitest.config.ts can read it.
 */

/**
 * Files that never open a database: none of their imports, followed through every file they
 * import, reaches src/db/database.ts, a test helper that opens databases or starts `serve` or CLI
 * children, a database driver, or node:child_process. test/unit/engine-independent.test.ts checks
 * that of every file here; a file that starts touching a database fails it until it leaves the list.
 */
export const ENGINE_INDEPENDENT: readonly string[] = [
  'test/chain/absence.test.ts',
  'test/chain/address.test.ts',
  'test/chain/block-header.test.ts',
  'test/chain/client.test.ts',
  'test/chain/fixtures.test.ts',
  'test/chain/node-http.test.ts',
  'test/chain/outcome.integration.test.ts',
  'test/chain/outcome.test.ts',
  'test/chain/parse-worker.test.ts',
  'test/deploy/heap.test.ts',
  'test/devnet/beyond-solid.test.ts',
  'test/devnet/broadcast-errors.test.ts',
  'test/devnet/bulk.test.ts',
  'test/devnet/fork-persist.test.ts',
  'test/devnet/pay.test.ts',
  'test/devnet/timestamps.test.ts',
  'test/devnet/tronweb.test.ts',
  'test/e2e/logging-webhook-secret-in-text.test.ts',
  'test/http/in-flight.test.ts',
  'test/http/pagination.test.ts',
  'test/money.test.ts',
  'test/operations/config.test.ts',
  'test/readme/claims.test.ts',
  'test/runtime/threads.test.ts',
  'test/unit/config-unsafe-values.test.ts',
  'test/unit/engine-independent.test.ts',
  'test/unit/ids.test.ts',
  'test/wallet/hd-libsecp256k1.slow.test.ts',
];

/**
 * Files that start the demo, which keeps its data in a SQLite file of its own whatever the test
 * engine: on PostgreSQL they would run the very same thing again.
 */
export const SQLITE_DEMO: readonly string[] = ['test/e2e/demo.test.ts', 'test/readme/readme.test.ts'];

/**
 * Files that run on PostgreSQL whatever the test engine: they make their own PostgreSQL databases
 * and never use the engine under test, so the SQLite run has run them on PostgreSQL already.
 * test/unit/engine-independent.test.ts checks that of each (and of the files it imports from its
 * own folder).
 */
export const POSTGRES_ALWAYS: readonly string[] = [
  'test/deploy/nginx-replicas.test.ts',
  'test/replicas/api.test.ts',
  'test/replicas/failover.test.ts',
  'test/replicas/paused-holder.test.ts',
  'test/replicas/payouts.test.ts',
];

/** What the run on PostgreSQL leaves out. */
export const SQLITE_RUN_ONLY: readonly string[] = [...ENGINE_INDEPENDENT, ...SQLITE_DEMO, ...POSTGRES_ALWAYS];
