/**
 * What the soak starts from: a devnet in this process (it outlives every `serve`), a database (a
 * SQLite file in the run's directory, or the PostgreSQL database `databaseUrl` names) with
 * the wallet (the test mnemonic of docs/tron.md, cheap scrypt), two merchants with keys and webhook
 * endpoints on the loopback receiver (one per invoice with a service fee, one with permanent
 * per-user addresses), seed balances for payouts, whitelisted payout targets and a funded hot wallet.
 */
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { loadCatalog } from '../../../src/assets/catalog.js';
import { systemClock } from '../../../src/clock.js';
import { parseConfig } from '../../../src/config.js';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { startDevnet, type Devnet } from '../../../src/devnet/index.js';
import { setServiceFee } from '../../../src/fees/service.js';
import { approvedMerchantWithKey } from '../../../src/keys/service.js';
import { setPayoutLimits } from '../../../src/payouts/limits.js';
import { creditMerchant } from '../../../src/ledger/operator.js';
import { initWallet } from '../../../src/wallet/service.js';
import { setEndpoint } from '../../../src/webhooks/endpoints.js';
import { addToWhitelist } from '../../../src/whitelist/service.js';
import type { Rng } from './rng.js';
import type { WebhookReceiver } from './receiver.js';

export const ASSETS = ['USDT_TRON', 'TRX_TRON'] as const;
/** Blocks to a deposit's `confirmed`; forks go up to 18 blocks deep, so many cut below a confirmed one. */
export const CONFIRMATIONS = 6;
export const SOLID_LAG = 19;
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const PASSPHRASE = 'soak passphrase, long enough';
/** Seed balance per merchant and asset, so payouts can start before the first deposit is final. */
export const SEED_CREDIT = '5000';

export interface SoakMerchant {
  id: string;
  key: string;
  mode: 'per_invoice' | 'per_user';
}

export interface SoakWorld {
  dir: string;
  devnet: Devnet;
  database: Database;
  env: Record<string, string>;
  hotAddress: string;
  merchants: SoakMerchant[];
  payoutTargets: string[];
}

export async function buildWorld(
  dir: string,
  rng: Rng,
  receiver: WebhookReceiver,
  blockTimeMs: number,
  databaseUrl?: string,
): Promise<SoakWorld> {
  const devnet = await startDevnet({ blockTimeMs, solidLag: SOLID_LAG });
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl ?? path.join(dir, 'paygate.db'),
    WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
    WALLET_PASSPHRASE: PASSPHRASE,
    TRON_NETWORK: 'devnet',
    TRON_FULL_NODE_URL: devnet.url,
    PORT: '0',
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
    // info: the shutdown steps of each SIGTERM are in serve.log (--keep) when one takes too long.
    LOG_LEVEL: 'info',
    CONFIRMATIONS: String(CONFIRMATIONS),
    // A SIGKILLed holder's lease lapses after 2 s (the minimum), so a restart takes over quickly.
    WORKER_LEASE_TTL: '2s',
    // The soak's own request rate must not meet the rate limits: it tests faults, not limits.
    API_RATE_LIMIT_PER_KEY: '1000000',
    API_RATE_LIMIT_PER_IP: '1000000',
  };
  const database = openDatabase(env.DATABASE_URL as string);
  const db = database.db;
  await migrateToLatest(db);
  const wallet = await initWallet(db, systemClock, 'soak', parseConfig(env), {
    mnemonic: MNEMONIC,
    scrypt: { N: 1024, r: 8, p: 1 },
  });
  const catalog = loadCatalog('devnet');
  const payoutTargets = Array.from({ length: 6 }, () => TronWeb.address.fromPrivateKey(randomKey(rng)) as string);
  const merchants: SoakMerchant[] = [];
  for (const [name, mode] of [
    ['Soak shop', 'per_invoice'],
    ['Soak exchange', 'per_user'],
  ] as const) {
    const { merchant, apiKey } = await approvedMerchantWithKey(db, systemClock, 'soak', { name, addressMode: mode });
    const id = merchant.merchant_id;
    // The endpoint first: every event of this merchant is then due to the receiver.
    const endpoint = await setEndpoint(db, systemClock, 'soak', id, {
      url: `${receiver.url}/hooks/${id}`,
      allowPrivate: true,
    });
    receiver.addMerchant(id, endpoint.secret as string);
    if (mode === 'per_invoice') await setServiceFee(db, systemClock, 'soak', id, { percent: '1', payer: 'merchant' });
    // The exchange's small payouts go straight to the queue; the shop's all wait for the operator.
    else await setPayoutLimits(db, systemClock, 'soak', id, { autoApproveLimit: '2' });
    for (const asset of ASSETS) {
      await creditMerchant(db, systemClock, 'soak', catalog, id, { asset, amount: SEED_CREDIT, memo: 'soak seed' });
      for (const address of payoutTargets)
        await addToWhitelist(db, systemClock, 'soak', catalog, id, { asset, address, delay: '0' });
    }
    merchants.push({ id, key: apiKey, mode });
  }
  const hotAddress = wallet.hot_address;
  devnet.control.fund({ address: hotAddress, asset: 'TRX_TRON', amount: 10_000_000_000_000n });
  devnet.control.fund({ address: hotAddress, asset: 'USDT_TRON', amount: 10_000_000_000_000n, mine: true });
  return { dir, devnet, database, env, hotAddress, merchants, payoutTargets };
}

function randomKey(rng: Rng): string {
  return Array.from({ length: 32 }, () => rng.int(0, 255).toString(16).padStart(2, '0')).join('');
}
