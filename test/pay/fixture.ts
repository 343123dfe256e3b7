/** An app with the console, a wallet and a manual clock, for page invoices over real HTTP. */
import { initWallet } from '../../src/wallet/service.js';
import { ManualClock } from '../../src/clock.js';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { api, type ApiResponse } from '../helpers/http.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';

export interface PayTestApp extends ConsoleTestApp {
  clock: ManualClock;
  /** Base URL of the payment page's listener. */
  pay: string;
  /** POST /admin/v1/merchants/{id}/invoices. */
  createPage(merchantId: string, body: Record<string, unknown>): Promise<ApiResponse>;
}

export const pageBody = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  order_id: `page-${Math.random().toString(36).slice(2)}`,
  price: '25',
  expires_in: 900,
  ...over,
});

export async function startPayApp(opts: { env?: Record<string, string> } = {}): Promise<PayTestApp> {
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const t = await startConsoleApp({
    clock,
    workers: false,
    env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, ...opts.env },
  });
  await initWallet(t.app.services.db, clock, 'test', t.app.config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
  return {
    ...t,
    clock,
    pay: t.app.payUrl as string,
    createPage: (merchantId, body) => t.call(`/admin/v1/merchants/${merchantId}/invoices`, { body }),
  };
}

export { api };
