import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only adds contention (argon2, SQLite fsyncs).
    maxWorkers: 2,
    // On PostgreSQL: leftovers of crashed runs dropped, one migrated template for the run's databases.
    globalSetup: process.env.PAYGATE_TEST_DATABASE === 'postgres' ? ['test/helpers/postgres-setup.ts'] : [],
  },
});
