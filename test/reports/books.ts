/**
 * A money history made with the real services on the real app's SQLite file: invoices over HTTP,
 * deposits recorded and settled the way the chain watcher does (recordTransfer and
 * advanceDeposits in one write transaction), payouts requested, reviewed and moved through the
 * worker's transitions, operator corrections. Every step advances the shared manual clock, so the
 * history has a time line that reports can cut into periods.
 */
import { randomBytes } from 'node:crypto';
import { findDepositAddresses } from '../../src/addresses/store.js';
import { writeTx } from '../../src/db/database.js';
import { recordTransfer } from '../../src/deposits/service.js';
import { setPayoutFee } from '../../src/fees/payout.js';
import { setServiceFee } from '../../src/fees/service.js';
import { creditMerchant, debitMerchant } from '../../src/ledger/operator.js';
import { findMerchant, type MerchantRow } from '../../src/merchants/store.js';
import { approvePayout, cancelPayout } from '../../src/payouts/operator.js';
import { createPayout } from '../../src/payouts/service.js';
import { transitionPayout } from '../../src/payouts/transitions.js';
import type { PayoutRow } from '../../src/payouts/store.js';
import { advanceDeposits } from '../../src/watcher/deposit-progress.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import type { InvoiceTestApp } from '../invoices/fixture.js';

export interface Shop {
  id: string;
  key: string;
  row: MerchantRow;
}

export class Books {
  private block = 5_000;
  private orders = 0;

  constructor(readonly t: InvoiceTestApp) {}

  get db() {
    return this.t.app.services.db;
  }

  /** Moves the shared clock on (entries, invoices and deposits get later times). */
  tick(ms = 1_000): void {
    this.t.clock.advance(ms);
  }

  async shop(opts: { feePercent?: string; addressMode?: 'per_invoice' | 'per_user' } = {}): Promise<Shop> {
    const { merchant, key } = await this.t.merchant({ name: 'Books shop', addressMode: opts.addressMode });
    if (opts.feePercent)
      await setServiceFee(this.db, this.t.clock, 'test', merchant.merchant_id, {
        percent: opts.feePercent,
        payer: 'merchant',
      });
    return { id: merchant.merchant_id, key, row: (await findMerchant(this.db, merchant.merchant_id))! };
  }

  async payoutFee(asset: string, amount: string, percent = '0'): Promise<void> {
    await setPayoutFee(this.db, this.t.clock, 'test', this.t.app.services.catalog, { asset, amount, percent });
  }

  async invoice(shop: Shop, amount: string, over: Record<string, unknown> = {}): Promise<any> {
    const r = await api(this.t.url, '/v1/invoices', {
      key: shop.key,
      body: { order_id: `books-${++this.orders}`, asset: 'USDT_TRON', amount, expires_in: 3600, ...over },
    });
    if (r.status !== 201) throw new Error(`invoice: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /**
   * A transfer to `address` recorded and progressed as the watcher does. `final`: its block is
   * solid and past the confirmations policy (so it is credited); else it is only seen.
   */
  async pay(
    address: string,
    merchantId: string,
    units: bigint,
    opts: { final?: boolean; asset?: string; externalUserId?: string | null; logIndex?: number } = {},
  ): Promise<{ txHash: string; blockTime: string }> {
    const asset = opts.asset ?? 'USDT_TRON';
    const decimals = this.t.app.services.catalog.get(asset)!.decimals;
    const number = ++this.block;
    const block = { number, hash: randomBytes(32).toString('hex'), time: this.t.clock.now().toISOString() };
    const final = opts.final ?? true;
    const head = final ? number + 25 : number;
    this.block = head;
    const txHash = randomBytes(32).toString('hex');
    const clock = this.t.clock;
    await writeTx(this.db, async (trx) => {
      const r = await recordTransfer(
        trx,
        { clock, head },
        {
          address,
          derivationIndex: (await findDepositAddresses(trx, [address]))[0]!.derivation_index,
          merchantId,
          externalUserId: opts.externalUserId ?? null,
          asset,
          decimals,
          amount: units,
          txHash,
          logIndex: opts.logIndex ?? (asset === 'TRX_TRON' ? -1 : 0),
          from: null,
          block,
        },
      );
      await advanceDeposits(
        trx,
        {
          clock,
          defaultConfirmations: 19,
          horizon: block.time,
          head,
          solid: final ? number : number - 1,
          scannedTo: head,
        },
        new Set(r?.invoices ?? []),
      );
    });
    return { txHash, blockTime: block.time };
  }

  /** A payout request to a new whitelisted address, approved when it lands in review. */
  async payout(shop: Shop, amount: string, asset = 'USDT_TRON'): Promise<PayoutRow> {
    const { db, clock, catalog } = this.t.app.services;
    const to = newAddress();
    await addToWhitelist(db, clock, 'test', catalog, shop.id, { asset, address: to, delay: '0' });
    const created = await createPayout({ db, clock, catalog }, shop.row, {
      reference: `books-payout-${++this.orders}`,
      asset,
      to_address: to,
      amount,
    });
    if (created.payout.status === 'pending_review') await approvePayout(db, clock, 'test', created.payout.payout_id);
    return this.payoutRow(created.payout.payout_id);
  }

  async payoutRow(id: string): Promise<PayoutRow> {
    return this.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** Moves an approved payout as the worker does: queued, signing (its tx hash), broadcast, then `end`. */
  async settlePayout(id: string, end: 'confirmed' | 'failed'): Promise<string> {
    const txHash = randomBytes(32).toString('hex');
    const steps = [
      { to: 'queued' as const },
      { to: 'signing' as const, patch: { tx_hash: txHash, sign_attempts: 1 } },
      { to: 'broadcast' as const },
      { to: end, patch: { network_fee: '345000', ...(end === 'failed' ? { fail_reason: 'REVERT' } : {}) } },
    ];
    for (const step of steps) {
      this.tick(500);
      await writeTx(this.db, async (trx) => {
        const row = await trx.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        await transitionPayout(trx, this.t.clock, row, { actor: 'worker', ...step });
      });
    }
    return txHash;
  }

  /** Stops a payout not yet signing (payout cancel): rejected, its reservation released. */
  async reject(id: string): Promise<void> {
    await cancelPayout(this.db, this.t.clock, 'test', id, 'not today');
  }

  async credit(shop: Shop, amount: string, asset = 'USDT_TRON', reference?: string): Promise<void> {
    await creditMerchant(this.db, this.t.clock, 'test', this.t.app.services.catalog, shop.id, {
      asset,
      amount,
      memo: 'correction',
      reference: reference ?? null,
    });
  }

  async debit(shop: Shop, amount: string, asset = 'USDT_TRON'): Promise<void> {
    await debitMerchant(this.db, this.t.clock, 'test', this.t.app.services.catalog, shop.id, {
      asset,
      amount,
      memo: 'correction',
    });
  }
}
