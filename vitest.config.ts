import { configDefaults, defineConfig } from 'vitest/config';
import { SQLITE_RUN_ONLY } from './test/helpers/engine-independent.js';

const ON_POSTGRES = process.env.PAYGATE_TEST_DATABASE === 'postgres';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // On PostgreSQL: the files the SQLite run has run the same way already.
    exclude: ON_POSTGRES ? [...configDefaults.exclude, ...SQLITE_RUN_ONLY] : configDefaults.exclude,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only adds contention (argon2, SQLite fsyncs).
    maxWorkers: 2,
    // The web pages bundled once (the servers serve dist/web); on PostgreSQL besides: leftovers of
    // crashed runs dropped, one migrated template for the run's databases.
    globalSetup: ['test/helpers/web-setup.ts', ...(ON_POSTGRES ? ['test/helpers/postgres-setup.ts'] : [])],
    // On PostgreSQL: each file's first database copied while the file loads.
    setupFiles: ON_POSTGRES ? ['test/helpers/postgres-file-setup.ts'] : [],
  },
});
