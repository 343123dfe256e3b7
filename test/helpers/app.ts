/**
 * Builds the real app (src/app.ts) over a SQLite file in a temp dir (or a fresh PostgreSQL
 * database with PAYGATE_TEST_DATABASE=postgres, helpers/database.ts), listening on 127.0.0.1 with
 * an ephemeral port, and offers the operator tasks tests need (merchants and real argon2 keys).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App, type AppOptions } from '../../src/app.js';
import { ManualClock, type Clock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { issueKey } from '../../src/keys/service.js';
import {
  changeMerchant,
  createMerchant,
  type CreateMerchantInput,
  type MerchantView,
} from '../../src/merchants/service.js';
import { testDatabaseUrl } from './database.js';

export interface TestApp {
  app: App;
  url: string;
  dir: string;
  clock: Clock;
  /** A merchant (approved unless asked otherwise) and a key for it. */
  merchant(
    input?: Partial<CreateMerchantInput> & { approve?: boolean },
  ): Promise<{ merchant: MerchantView; key: string }>;
  key(merchantId: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions extends AppOptions {
  env?: Record<string, string>;
}

const made: string[] = [];
// Temporary directories (databases, keystores) go when the test worker exits, whatever the test did.
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * argon2id parameters of test keys: the verifier reads the parameters from the stored hash, so a
 * test key costs well under a millisecond instead of ~100 ms. Keys issued through the CLI keep the
 * production parameters (test/e2e/cli.test.ts asserts them).
 */
export const TEST_HASH_COST = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

export function tempDir(prefix = 'paygate-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dir = tempDir();
  const database = opts.env?.DATABASE_URL ? null : await testDatabaseUrl(path.join(dir, 'paygate.db'));
  const config = parseConfig({
    DATABASE_URL: database?.url ?? path.join(dir, 'paygate.db'),
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
    LOG_LEVEL: 'silent',
    TRON_NETWORK: 'devnet',
    WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
    ...opts.env,
  });
  const clock = opts.clock ?? new ManualClock(new Date());
  const app = await buildApp(config, { ...opts, clock });
  const url = await app.start();
  const db = app.services.db;
  const key = async (merchantId: string) => (await issueKey(db, clock, 'test', merchantId, TEST_HASH_COST)).api_key;
  return {
    app,
    url,
    dir,
    clock,
    key,
    async merchant(input = {}) {
      const { approve = true, ...rest } = input;
      let merchant = await createMerchant(db, clock, 'test', { name: 'Test shop', ...rest });
      if (approve) merchant = await changeMerchant(db, clock, 'test', merchant.merchant_id, 'approve');
      return { merchant, key: await key(merchant.merchant_id) };
    },
    async close() {
      await app.stop();
      // Not waited for: the next test need not wait for the server to remove this one.
      void database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
