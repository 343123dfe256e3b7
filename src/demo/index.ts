/**
 * `paygate demo`: a throwaway instance in one step, configured exactly as `serve` would be for
 * TRON_NETWORK=devnet. In a temporary folder: an embedded devnet (the simulated TRON node), the
 * database and an encrypted wallet; two approved merchants (one per address mode) with API keys and
 * webhook endpoints on a local receiver that verifies and prints every event; a funded hot wallet;
 * a whitelisted payout address past its delay and an opening balance; a first invoice ready to be
 * paid; and the owners' cabinet with one account for both merchants. Everything is deleted on stop.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../app.js';
import { systemClock } from '../clock.js';
import { databaseLabel, parseConfig, type LogLevel } from '../config.js';
import { openDatabase, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { startDevnet, type Devnet } from '../devnet/index.js';
import { setServiceFee } from '../fees/service.js';
import { setPayoutFee } from '../fees/payout.js';
import { approvedMerchantWithKey } from '../keys/service.js';
import { creditMerchant } from '../ledger/operator.js';
import { createLogger } from '../logger.js';
import { requireMerchant, updateMerchantSettings } from '../merchants/service.js';
import { completeSetup, createOwner } from '../owners/service.js';
import { pageDeps } from '../pay/server.js';
import { createPageInvoice } from '../pay/service.js';
import { loadCatalog } from '../assets/catalog.js';
import { initWallet } from '../wallet/service.js';
import { setEndpoint } from '../webhooks/endpoints.js';
import { addToWhitelist } from '../whitelist/service.js';
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from './receiver.js';

export interface DemoOptions {
  port: number;
  /** The cabinet listener's port (0 = any free port). */
  cabinetPort?: number;
  /** The payment page's listener port (0 = any free port). */
  payPort?: number;
  blockTimeMs: number;
  logLevel: LogLevel;
  /** Called for every verified webhook event the receiver gets. */
  onEvent?: (e: ReceivedEvent) => void;
}

export interface DemoMerchant {
  name: string;
  merchant_id: string;
  api_key: string;
  address_mode: 'per_invoice' | 'per_user';
}

/** The merchant owner's cabinet of the demo: its page and the owner's sign-in (a throwaway password). */
export interface DemoCabinet {
  url: string;
  email: string;
  password: string;
}

export interface DemoInfo {
  api_url: string;
  cabinet: DemoCabinet;
  /** The per_invoice merchant's key (the one the printed commands use). */
  api_key: string;
  merchant_id: string;
  merchants: DemoMerchant[];
  devnet_url: string;
  database: string;
  hot_wallet: string;
  /** Whitelisted for the shop's USDT payouts, usable at once. */
  payout_address: string;
  /** A page invoice of the shop (priced in dollars): its link opens the payment page. */
  page: { invoice_id: string; checkout_url: string; price: string };
  /** The first invoice, ready to be paid with `paygate devnet pay`. */
  invoice: { invoice_id: string; address: string; amount: string; asset: string };
  customer: { address: string; private_key: string };
}

export interface RunningDemo {
  info: DemoInfo;
  app: App;
  devnet: Devnet;
  receiver: WebhookReceiver;
  stop(): Promise<void>;
}

/** Confirmations the demo merchants ask for: `confirmed` after 3 blocks, `settled` once solid. */
export const DEMO_CONFIRMATIONS = 3;
const SHOP = { name: 'Demo shop', siteUrl: 'https://shop.example', addressMode: 'per_invoice' as const };
const GAMES = { name: 'Demo games', siteUrl: 'https://games.example', addressMode: 'per_user' as const };

export async function startDemo(opts: DemoOptions): Promise<RunningDemo> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-demo-'));
  const closers: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const receiver = await startWebhookReceiver(opts.onEvent ?? (() => {}));
    closers.push(() => receiver.close());
    const devnet = await startDevnet({ port: 0, blockTimeMs: opts.blockTimeMs });
    closers.push(() => devnet.close());
    const config = parseConfig({
      DATABASE_URL: path.join(dir, 'demo.db'),
      HOST: '127.0.0.1',
      PORT: String(opts.port),
      ADMIN_PORT: '0',
      CABINET_PORT: String(opts.cabinetPort ?? 0),
      PAY_PORT: String(opts.payPort ?? 0),
      TRON_NETWORK: 'devnet',
      TRON_FULL_NODE_URL: devnet.url,
      WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
      WALLET_PASSPHRASE: randomBytes(24).toString('base64url'),
      // A throwaway instance seals its owners' TOTP secrets with a throwaway key, so enrolment works.
      CABINET_TOTP_KEY: randomBytes(32).toString('base64url'),
      // The demo's cabinet is plain HTTP on loopback: its session cookie goes without Secure.
      CABINET_INSECURE_COOKIE: '1',
      LOG_LEVEL: opts.logLevel,
    });
    const setup = openDatabase(config.database);
    let seeded: Awaited<ReturnType<typeof seed>>;
    try {
      await migrateToLatest(setup.db);
      seeded = await seed(setup.db, config, devnet, receiver);
    } finally {
      await setup.close();
    }
    // Logs go to stderr: stdout carries the demo's details (one JSON line with --json).
    const app = await buildApp(config, { unlockWallet: true, logger: createLogger(opts.logLevel, process.stderr) });
    closers.push(() => app.stop());
    const url = await app.start();
    const cabinet = await ownerAccount(app, seeded.merchants);
    const shop = seeded.merchants[0] as DemoMerchant;
    const invoice = await firstInvoice(`${url}/v1`, shop.api_key);
    const page = await pageInvoice(app, shop.merchant_id);
    const customer = devnet.accounts[0] as { address: string; privateKey: string };
    const info: DemoInfo = {
      api_url: `${url}/v1`,
      cabinet,
      api_key: shop.api_key,
      merchant_id: shop.merchant_id,
      merchants: seeded.merchants,
      devnet_url: devnet.url,
      database: databaseLabel(config.database),
      hot_wallet: seeded.hotWallet,
      payout_address: seeded.payoutAddress,
      page,
      invoice,
      customer: { address: customer.address, private_key: customer.privateKey },
    };
    return { info, app, devnet, receiver, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Operator set-up, exactly what the CLI commands of the README do. */
async function seed(db: Db, config: ReturnType<typeof parseConfig>, devnet: Devnet, receiver: WebhookReceiver) {
  const clock = systemClock;
  const catalog = loadCatalog('devnet');
  const hotWallet = (await initWallet(db, clock, 'demo', config)).hot_address;
  const merchants: DemoMerchant[] = [];
  for (const m of [SHOP, GAMES]) {
    const { merchant, apiKey } = await approvedMerchantWithKey(db, clock, 'demo', m);
    await updateMerchantSettings(db, clock, 'demo', merchant.merchant_id, { confirmations: DEMO_CONFIRMATIONS });
    const endpoint = await setEndpoint(db, clock, 'demo', merchant.merchant_id, {
      url: receiver.url(m.name),
      allowPrivate: true,
    });
    receiver.trust(m.name, endpoint.secret as string);
    merchants.push({ name: m.name, merchant_id: merchant.merchant_id, api_key: apiKey, address_mode: m.addressMode });
  }
  const shopId = (merchants[0] as DemoMerchant).merchant_id;
  await setServiceFee(db, clock, 'demo', shopId, { percent: '1', payer: 'merchant' });
  await setPayoutFee(db, clock, 'demo', catalog, { asset: 'USDT_TRON', amount: '0.5', percent: '0' });
  const payoutAddress = (devnet.accounts[1] as { address: string }).address;
  await addToWhitelist(db, clock, 'demo', catalog, shopId, { asset: 'USDT_TRON', address: payoutAddress, delay: '0' });
  await creditMerchant(db, clock, 'demo', catalog, shopId, {
    asset: 'USDT_TRON',
    amount: '100',
    memo: 'demo opening balance',
  });
  // The hot wallet pays payouts (USDT) and their network costs (TRX).
  devnet.control.fund({ address: hotWallet, asset: 'TRX_TRON', amount: 5_000_000_000n });
  devnet.control.fund({ address: hotWallet, asset: 'USDT_TRON', amount: 1_000_000_000n, mine: true });
  return { hotWallet, merchants, payoutAddress };
}

export const DEMO_OWNER = 'owner@demo.example';

/**
 * The merchants' owner account, made as the operator makes one (`paygate owner create`), its setup
 * link used at once with a generated password: a throwaway instance prints it, once.
 */
async function ownerAccount(app: App, merchants: DemoMerchant[]): Promise<DemoCabinet> {
  const { db, clock } = app.services;
  const url = app.cabinetUrl as string;
  const owner = await createOwner(db, clock, 'demo', {
    email: DEMO_OWNER,
    merchantIds: merchants.map((m) => m.merchant_id),
    cabinetUrl: url,
  });
  const password = randomBytes(12).toString('base64url');
  await completeSetup(db, clock, owner.setup_token, password);
  return { url, email: DEMO_OWNER, password };
}

/** One page invoice of the shop, made as the operator makes one (`paygate invoice create`). */
async function pageInvoice(app: App, merchantId: string): Promise<DemoInfo['page']> {
  const { db } = app.services;
  const { invoice } = await createPageInvoice(
    pageDeps(app.services),
    await requireMerchant(db, merchantId),
    { order_id: 'page-1', price: '19.99', expires_in: 3600, description: 'Demo order: a logo design' },
    'demo',
  );
  return { invoice_id: invoice.invoice_id, checkout_url: invoice.checkout_url, price: invoice.price };
}

async function firstInvoice(api: string, key: string): Promise<DemoInfo['invoice']> {
  const res = await fetch(`${api}/invoices`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ order_id: 'demo-order-1', asset: 'USDT_TRON', amount: '12.5', expires_in: 3600 }),
  });
  const body = (await res.json()) as { invoice_id: string; address: string; amount_expected: string; asset: string };
  if (res.status !== 201) throw new Error(`the demo could not create its first invoice: ${JSON.stringify(body)}`);
  return { invoice_id: body.invoice_id, address: body.address, amount: body.amount_expected, asset: body.asset };
}
