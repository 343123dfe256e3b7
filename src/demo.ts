/**
 * `paygate demo`: a throwaway instance in one step. A temporary database and keystore, an embedded
 * devnet (the simulated TRON node), the wallet, an approved demo merchant with an API key, and the
 * real app on top, configured exactly as `serve` would be for TRON_NETWORK=devnet.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App } from './app.js';
import { systemClock } from './clock.js';
import { parseConfig, type LogLevel } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { startDevnet, type Devnet } from './devnet/index.js';
import { approvedMerchantWithKey } from './keys/service.js';
import { createLogger } from './logger.js';
import { initWallet } from './wallet/service.js';

export interface DemoOptions {
  port: number;
  blockTimeMs: number;
  logLevel: LogLevel;
}

export interface DemoInfo {
  api_url: string;
  api_key: string;
  merchant_id: string;
  devnet_url: string;
  database: string;
  hot_wallet: string;
  customer: { address: string; private_key: string };
}

export interface RunningDemo {
  info: DemoInfo;
  stop(): Promise<void>;
}

export async function startDemo(opts: DemoOptions): Promise<RunningDemo> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-demo-'));
  let devnet: Devnet | null = null;
  let app: App | null = null;
  try {
    devnet = await startDevnet({ port: 0, blockTimeMs: opts.blockTimeMs });
    const config = parseConfig({
      DATABASE_URL: path.join(dir, 'demo.db'),
      HOST: '127.0.0.1',
      PORT: String(opts.port),
      ADMIN_PORT: '0',
      TRON_NETWORK: 'devnet',
      TRON_FULL_NODE_URL: devnet.url,
      WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
      WALLET_PASSPHRASE: randomBytes(24).toString('base64url'),
      LOG_LEVEL: opts.logLevel,
    });
    const setup = openDatabase(config.databasePath);
    let merchantId: string;
    let apiKey: string;
    let hotWallet: string;
    try {
      await migrateToLatest(setup.db);
      hotWallet = (await initWallet(setup.db, systemClock, 'demo', config)).hot_address;
      const seeded = await approvedMerchantWithKey(setup.db, systemClock, 'demo', { name: 'Demo shop', siteUrl: 'https://shop.example' });
      merchantId = seeded.merchant.merchant_id;
      apiKey = seeded.apiKey;
    } finally {
      await setup.close();
    }
    // Logs go to stderr: stdout carries the demo's details (one JSON line with --json).
    app = await buildApp(config, { logger: createLogger(opts.logLevel, process.stderr) });
    const url = await app.start();
    const customer = devnet.accounts[0] as { address: string; privateKey: string };
    const running = { app, devnet };
    return {
      info: {
        api_url: `${url}/v1`,
        api_key: apiKey,
        merchant_id: merchantId,
        devnet_url: devnet.url,
        database: config.databasePath,
        hot_wallet: hotWallet,
        customer: { address: customer.address, private_key: customer.privateKey },
      },
      async stop() {
        await running.app.stop();
        await running.devnet.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await app?.stop();
    await devnet?.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** What the demo prints for a human: everything needed to try the API with curl. */
export function demoInstructions(i: DemoInfo): string {
  return [
    'paygate demo is running (throwaway: everything is deleted on Ctrl-C).',
    '',
    `  API          ${i.api_url}`,
    `  API key      ${i.api_key}`,
    `  merchant     ${i.merchant_id} (approved, site https://shop.example)`,
    `  TRON devnet  ${i.devnet_url} (simulated node; customer account ${i.customer.address})`,
    '',
    'Try:',
    `  export PAYGATE_KEY=${i.api_key}`,
    `  curl -s -X POST ${i.api_url}/invoices -H "X-Api-Key: $PAYGATE_KEY" -H 'Content-Type: application/json' \\`,
    `       -d '{"order_id":"order-1","asset":"USDT_TRON","amount":"12.5","expires_in":3600}'`,
    `  curl -s ${i.api_url}/invoices/<invoice_id> -H "X-Api-Key: $PAYGATE_KEY"`,
    `  curl -s ${i.api_url}/openapi.json | head -c 400`,
    `  paygate devnet pay <address> 12.5 --asset USDT_TRON --url ${i.devnet_url}   # a customer payment`,
    '',
    'Press Ctrl-C to stop.',
  ].join('\n');
}
