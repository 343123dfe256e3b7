/**
 * A running app with an initialised wallet (the test mnemonic of docs/tron.md, cheap scrypt parameters),
 * for the invoice, address and fee tests. Everything else is the real app over real HTTP.
 */
import { ManualClock } from '../../src/clock.js';
import type { AllocatorOptions } from '../../src/addresses/allocator.js';
import { initWallet } from '../../src/wallet/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

export const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
export const TEST_PASSPHRASE = 'test passphrase, long enough';
export const CHEAP_SCRYPT = { N: 1024, r: 8, p: 1 };
/** docs/tron.md: m/44'/195'/0'/0/0, /1, /2 of the test mnemonic. */
export const VECTORS = [
  'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
  'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
  'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx',
];

export interface InvoiceTestApp extends TestApp {
  clock: ManualClock;
}

export async function startInvoiceApp(
  opts: { addresses?: AllocatorOptions; clock?: ManualClock; env?: Record<string, string> } = {},
): Promise<InvoiceTestApp> {
  const clock = opts.clock ?? new ManualClock('2026-03-01T10:00:00.000Z');
  const t = await startTestApp({
    clock,
    workers: false,
    addresses: opts.addresses,
    env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, ...opts.env },
  });
  await initWallet(t.app.services.db, clock, 'test', t.app.config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
  return { ...t, clock };
}

export const newInvoice = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  order_id: `order-${Math.random().toString(36).slice(2)}`,
  asset: 'USDT_TRON',
  amount: '10',
  expires_in: 900,
  ...over,
});
