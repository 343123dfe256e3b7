/**
 * Deposit addresses match the seed: whatever the concurrency and restarts, every stored deposit
 * address is the address of its derivation index under the mnemonic (re-derived here
 * independently: ethers from the phrase, TronWeb from the private key), and no address or index is
 * stored twice.
 */
import { TronWeb, utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { DepositKeyChain, publicInfoOf } from '../../src/wallet/hd.js';
import { api } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, TEST_MNEMONIC } from '../invoices/fixture.js';

const { ethersHDNodeWallet } = utils.ethersUtils;
/** m/44'/195'/0'/0 derived from the phrase by ethers, with its private key: none of paygate's code. */
const account = ethersHDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, "m/44'/195'/0'/0");

/** The address of m/44'/195'/0'/0/i from the seed: ethers' private derivation, TronWeb's address. */
function fromSeed(index: number): string {
  return TronWeb.address.fromPrivateKey(account.deriveChild(index).privateKey.slice(2)) as string;
}

const chain = new DepositKeyChain(publicInfoOf(TEST_MNEMONIC).depositXpub);

describe('derivation from the xpub', () => {
  it('gives 1,024 addresses, each the seed address of its index', () => {
    for (let i = 0; i < 1024; i++) expect(chain.addressAt(i), `index ${i}`).toBe(fromSeed(i));
  });
});

describe('stored deposit addresses', () => {
  it('are each the seed address of their index, and unique, after concurrent creations and a restart', async () => {
    const t = await startInvoiceApp();
    const perInvoice = await t.merchant({ name: 'Per invoice' });
    const perUser = await t.merchant({ name: 'Per user', addressMode: 'per_user' });
    const burst = (url: string, round: number) =>
      Promise.all([
        ...Array.from({ length: 24 }, () => api(url, '/v1/invoices', { key: perInvoice.key, body: newInvoice() })),
        ...Array.from({ length: 16 }, (_, i) =>
          api(url, '/v1/addresses', {
            key: perUser.key,
            body: { external_user_id: `user-${round}-${i % 12}`, network: 'tron' },
          }),
        ),
      ]);
    for (const r of await burst(t.url, 1)) expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    const config = t.app.config;
    await t.app.stop();
    const again = await buildApp(config, { clock: t.clock, workers: false });
    try {
      const url = await again.start();
      for (const r of await burst(url, 2)) expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      const rows = await again.services.db
        .selectFrom('deposit_addresses')
        .select(['address', 'derivation_index'])
        .orderBy('derivation_index')
        .execute();
      // 48 invoices and 24 distinct users (12 per round).
      expect(rows).toHaveLength(72);
      expect(new Set(rows.map((r) => r.address)).size).toBe(rows.length);
      expect(new Set(rows.map((r) => r.derivation_index)).size).toBe(rows.length);
      for (const r of rows) expect(r.address, `index ${r.derivation_index}`).toBe(fromSeed(r.derivation_index));
      // Invoices show the addresses that were stored.
      const invoices = await again.services.db.selectFrom('invoices').select('address').execute();
      const stored = new Set(rows.map((r) => r.address));
      expect(invoices.every((i) => stored.has(i.address))).toBe(true);
    } finally {
      await again.stop();
      await t.close().catch(() => {});
    }
  });
});
