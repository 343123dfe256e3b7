/** Payout review, operator actions, reads, merchant approval, concurrency and fees, over real HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { changeMerchant } from '../../src/merchants/service.js';
import { verifyLedger } from '../../src/ledger/service.js';
import { approvePayout, rejectPayout } from '../../src/payouts/operator.js';
import { removeFromWhitelist } from '../../src/whitelist/service.js';
import { api } from '../helpers/http.js';
import { newAddress, newPayout, PAYOUT_KEYS, type PayoutTestApp, usePayoutApp } from '../payouts/fixture.js';

describe('payouts API: review, reads, concurrency', () => {
  const c = usePayoutApp();
  const { post, get, db, payoutRows, reserves, funded } = c;
  let t: PayoutTestApp;
  beforeAll(() => {
    t = c.app();
  });

  describe('review', () => {
    it('puts a payout to a new address and above the default limit of 0 in review', async () => {
      const m = await funded();
      const r = await post(m.key, newPayout(m.address));
      expect(r.body.status).toBe('pending_review');
      expect(r.body.review_reasons).toEqual(['amount_above_auto_approve_limit', 'first_payout_to_address']);
    });

    it('approves automatically under the limit to an address already paid, and lists each reason that applies', async () => {
      const m = await funded('1000');
      await t.limits(m.id, '50', '100');
      const first = await post(m.key, newPayout(m.address, { amount: '20' }));
      expect(first.body.review_reasons).toEqual(['first_payout_to_address']);
      // Still the first while the first one is only pending.
      expect((await post(m.key, newPayout(m.address, { amount: '20' }))).body.review_reasons).toEqual([
        'first_payout_to_address',
      ]);
      await approvePayout(db(), t.clock, 'test', first.body.payout_id);
      const approvedEvents = await db()
        .selectFrom('events')
        .select('type')
        .where('subject_id', '=', first.body.payout_id)
        .orderBy('seq')
        .execute();
      expect(approvedEvents.map((e) => e.type)).toEqual(['payout.pending_review', 'payout.approved']);
      const second = await post(m.key, newPayout(m.address, { amount: '20' }));
      expect(second.body).toMatchObject({ status: 'approved', review_reasons: [] });
      const events = await db()
        .selectFrom('events')
        .select('type')
        .where('subject_id', '=', second.body.payout_id)
        .execute();
      expect(events.map((e) => e.type)).toEqual(['payout.approved']);
      // Today: 20 + 20 + 20 = 60; +40 = 100 is not above the daily limit, +0.000001 more is.
      expect((await post(m.key, newPayout(m.address, { amount: '40' }))).body.review_reasons).toEqual([]);
      expect((await post(m.key, newPayout(m.address, { amount: '0.000001' }))).body.review_reasons).toEqual([
        'daily_limit_exceeded',
      ]);
      expect((await post(m.key, newPayout(m.address, { amount: '60' }))).body.review_reasons).toEqual([
        'amount_above_auto_approve_limit',
        'daily_limit_exceeded',
      ]);
    });

    it('counts the daily limit per UTC day and leaves rejected payouts out', async () => {
      const clock = t.clock;
      const m = await funded('1000');
      await t.limits(m.id, null, '30');
      const seed = await post(m.key, newPayout(m.address, { amount: '1' }));
      await approvePayout(db(), clock, 'test', seed.body.payout_id);
      const big = await post(m.key, newPayout(m.address, { amount: '29' }));
      expect(big.body.review_reasons).toEqual([]);
      const over = await post(m.key, newPayout(m.address, { amount: '1' }));
      expect(over.body.review_reasons).toEqual(['daily_limit_exceeded']);
      await rejectPayout(db(), clock, 'test', over.body.payout_id, 'test');
      // The rejected one no longer counts, so 30 is reached but not exceeded... until another unit.
      expect((await post(m.key, newPayout(m.address, { amount: '0.5' }))).body.review_reasons).toEqual([
        'daily_limit_exceeded',
      ]);
      // Next UTC day: the counter starts again.
      const now = clock.now();
      clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)));
      expect((await post(m.key, newPayout(m.address, { amount: '30' }))).body.review_reasons).toEqual([]);
    });
  });

  describe('operator review', () => {
    it('rejects a pending payout, releases its reservation and shows charged 0; approving or rejecting again is invalid_state', async () => {
      await t.fee('USDT_TRON', '1', '0');
      try {
        const m = await funded('20');
        const r = await post(m.key, newPayout(m.address));
        expect(await t.balanceOf(m.id)).toEqual({ available: '9', reserved: '11', total: '20' });
        t.clock.advance(1000);
        const rejected = await rejectPayout(db(), t.clock, 'test', r.body.payout_id, 'compliance');
        expect(rejected.status).toBe('rejected');
        expect(await t.balanceOf(m.id)).toEqual({ available: '20', reserved: '0', total: '20' });
        const seen = await get(m.key, r.body.payout_id);
        expect(seen.body).toMatchObject({
          status: 'rejected',
          fees: { network: { payer: 'merchant', amount: '1', charged: '0' } },
        });
        expect(seen.body.updated_at).not.toBe(seen.body.created_at);
        expect(Object.keys(seen.body).sort()).toEqual(PAYOUT_KEYS);
        await expect(approvePayout(db(), t.clock, 'test', r.body.payout_id)).rejects.toMatchObject({
          code: 'invalid_state',
        });
        await expect(rejectPayout(db(), t.clock, 'test', r.body.payout_id, 'again')).rejects.toMatchObject({
          code: 'invalid_state',
        });
        expect(await verifyLedger(db(), m.id, 'USDT_TRON')).toEqual([]);
        const events = await db()
          .selectFrom('events')
          .select(['type', 'data'])
          .where('subject_id', '=', r.body.payout_id)
          .orderBy('seq')
          .execute();
        expect(events.map((e) => e.type)).toEqual(['payout.pending_review', 'payout.rejected']);
        expect(JSON.parse(events[1]!.data)).toEqual(seen.body);
        // A rejected reference stays taken: its replay returns the rejected payout.
        expect(
          (await post(m.key, { reference: r.body.reference, asset: 'USDT_TRON', to_address: m.address, amount: '10' }))
            .body.status,
        ).toBe('rejected');
      } finally {
        await t.fee('USDT_TRON', '0', '0');
      }
    });

    it('treats an address removed from the whitelist and added again as new', async () => {
      const m = await funded('1000');
      await t.limits(m.id, '50');
      const first = await post(m.key, newPayout(m.address, { amount: '5' }));
      await approvePayout(db(), t.clock, 'test', first.body.payout_id);
      expect((await post(m.key, newPayout(m.address, { amount: '5' }))).body.review_reasons).toEqual([]);
      await removeFromWhitelist(db(), t.clock, 'test', t.app.services.catalog, m.id, {
        asset: 'USDT_TRON',
        address: m.address,
      });
      t.clock.advance(1000);
      await t.allow(m.id, m.address);
      expect((await post(m.key, newPayout(m.address, { amount: '5' }))).body.review_reasons).toEqual([
        'first_payout_to_address',
      ]);
    });

    it('refuses to approve a payout whose address left the whitelist', async () => {
      const m = await funded();
      const r = await post(m.key, newPayout(m.address));
      await removeFromWhitelist(db(), t.clock, 'test', t.app.services.catalog, m.id, {
        asset: 'USDT_TRON',
        address: m.address,
      });
      await expect(approvePayout(db(), t.clock, 'test', r.body.payout_id)).rejects.toMatchObject({
        code: 'address_not_whitelisted',
      });
      expect((await get(m.key, r.body.payout_id)).body.status).toBe('pending_review');
    });
  });

  describe('GET /v1/payouts/{id}', () => {
    it("returns the merchant's own payout, and payout_not_found for absent and other merchants' ids", async () => {
      const a = await funded();
      const b = await funded();
      const created = await post(a.key, newPayout(a.address));
      const mine = await get(a.key, created.body.payout_id);
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual(created.body);
      const foreign = await get(b.key, created.body.payout_id);
      const absent = await get(b.key, '3b241101-e2bb-4255-8caf-4136c566a962');
      for (const r of [foreign, absent]) {
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe('payout_not_found');
      }
      expect(foreign.body).toEqual(absent.body);
      const bad = await get(a.key, 'not-a-uuid');
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe('params.id');
    });
  });

  describe('merchant approval', () => {
    it('lets a merchant that is not approved (or rejected) create and read payouts: they only spend its balance', async () => {
      const { merchant, key } = await t.merchant({ approve: false });
      const addr = newAddress();
      await t.fund(merchant.merchant_id, '50');
      await t.allow(merchant.merchant_id, addr);
      const r = await post(key, newPayout(addr));
      expect(r.status).toBe(202);
      await changeMerchant(db(), t.clock, 'test', merchant.merchant_id, 'reject');
      expect((await post(key, newPayout(addr))).status).toBe(202);
      expect((await get(key, r.body.payout_id)).status).toBe(200);
      await changeMerchant(db(), t.clock, 'test', merchant.merchant_id, 'disable');
      expect((await post(key, newPayout(addr))).body.error.code).toBe('merchant_disabled');
    });
  });

  describe('concurrency', () => {
    /** A key is hashed once, then trusted from memory: verify it first, as any live client's key is. */
    const warm = async (key: string) =>
      expect((await get(key, '3b241101-e2bb-4255-8caf-4136c566a962')).status).toBe(404);

    it('20 identical parallel requests make exactly one payout and one reservation', async () => {
      const m = await funded();
      await warm(m.key);
      const body = newPayout(m.address, { amount: '7' });
      const results = await Promise.all(Array.from({ length: 20 }, () => post(m.key, body)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 202)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(19);
      expect(new Set(results.map((r) => r.body.payout_id)).size).toBe(1);
      expect(await payoutRows(m.id)).toHaveLength(1);
      expect(await reserves(m.id)).toHaveLength(1);
      expect(await t.balanceOf(m.id)).toEqual({ available: '93', reserved: '7', total: '100' });
    });

    it('parallel different references racing for a balance that fits only some never overdraw it', async () => {
      await t.fee('USDT_TRON', '1', '0');
      try {
        const m = await funded('100');
        await warm(m.key);
        const results = await Promise.all(
          Array.from({ length: 20 }, () => post(m.key, newPayout(m.address, { amount: '10' }))),
        );
        const ok = results.filter((r) => r.status === 202);
        const refused = results.filter((r) => r.status !== 202);
        // 9 × (10 + 1) = 99 ≤ 100 < 110
        expect(ok).toHaveLength(9);
        expect(refused.every((r) => r.status === 422 && r.body.error.code === 'insufficient_balance')).toBe(true);
        expect(await t.balanceOf(m.id)).toEqual({ available: '1', reserved: '99', total: '100' });
        expect(await verifyLedger(db(), m.id, 'USDT_TRON')).toEqual([]);
      } finally {
        await t.fee('USDT_TRON', '0', '0');
      }
    });
  });

  it('keeps the fee in force at creation: a later fee change does not touch existing payouts; a scheduled one starts on time', async () => {
    const m = await funded();
    await t.fee('USDT_TRON', '1', '0');
    try {
      const first = await post(m.key, newPayout(m.address));
      await t.fee('USDT_TRON', '2', '0');
      expect((await get(m.key, first.body.payout_id)).body.fees.network.amount).toBe('1');
      const { setPayoutFee } = await import('../../src/fees/payout.js');
      const start = new Date(t.clock.now().getTime() + 60_000).toISOString();
      await setPayoutFee(db(), t.clock, 'test', t.app.services.catalog, {
        asset: 'USDT_TRON',
        amount: '3',
        percent: '0',
        validFrom: start,
      });
      expect((await post(m.key, newPayout(m.address))).body.fees.network.amount).toBe('2');
      t.clock.advance(60_000);
      expect((await post(m.key, newPayout(m.address))).body.fees.network.amount).toBe('3');
    } finally {
      await t.fee('USDT_TRON', '0', '0');
    }
  });

  it('documents the payout routes in the OpenAPI document', async () => {
    const r = await api(t.url, '/v1/openapi.json');
    const paths = r.body.paths;
    expect(Object.keys(paths['/v1/payouts'].post.responses).sort()).toEqual([
      '200',
      '202',
      '400',
      '401',
      '403',
      '409',
      '422',
      '429',
      '503',
    ]);
    expect(Object.keys(paths['/v1/payouts/{id}'].get.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
    ]);
  });
});
