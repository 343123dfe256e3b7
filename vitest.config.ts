import { defineConfig } from 'vitest/config';
import { SQLITE_RUN_ONLY } from './test/helpers/engine-independent.js';
import { filesByTier, TIERS } from './test/helpers/tiers.js';

const ON_POSTGRES = process.env.PAYGATE_TEST_DATABASE === 'postgres';

/**
 * On PostgreSQL: without the files the SQLite run has run the same way already, without the unit
 * tier (it reaches no database), and without the browser tier: the pages drive the same routes
 * the integration tier runs on PostgreSQL, and a browser adds nothing an engine changes
 * (docs/adr/0071-test-tiers.md).
 */
const skipped = new Set(ON_POSTGRES ? SQLITE_RUN_ONLY : []);
const byTier = filesByTier();
const tiers = ON_POSTGRES ? TIERS.filter((t) => t !== 'unit' && t !== 'browser') : TIERS;

export default defineConfig({
  test: {
    // Two cores: more workers than that only adds contention (argon2, SQLite fsyncs).
    maxWorkers: 2,
    // Once for the run, whichever tiers run: the web pages bundled (the servers serve dist/web); on
    // PostgreSQL besides: leftovers of crashed runs dropped, one migrated template for the run's
    // databases.
    globalSetup: ['test/helpers/web-setup.ts', ...(ON_POSTGRES ? ['test/helpers/postgres-setup.ts'] : [])],
    // One project per tier (test/helpers/tiers.ts); `npm run test:fast` runs unit and integration.
    projects: tiers.map((name) => ({
      test: {
        name,
        include: byTier[name].filter((f) => !skipped.has(f)),
        testTimeout: 60_000,
        hookTimeout: 60_000,
        // On PostgreSQL: each file's first database copied while the file loads.
        setupFiles: ON_POSTGRES ? ['test/helpers/postgres-file-setup.ts'] : [],
      },
    })),
  },
});
