/** POST /v1/payouts and GET /v1/payouts/{id} over real HTTP: spec rules 1–7 and DESIGN.md §6. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAssetFlags } from '../../src/assets/service.js';
import { changeMerchant } from '../../src/merchants/service.js';
import { verifyLedger } from '../../src/ledger/service.js';
import { setHalt } from '../../src/payouts/halts.js';
import { approvePayout, rejectPayout } from '../../src/payouts/operator.js';
import { removeFromWhitelist } from '../../src/whitelist/service.js';
import { api, isErrorBody } from '../helpers/http.js';
import { newAddress, newPayout, startPayoutApp, type PayoutTestApp } from '../payouts/fixture.js';

const PAYOUT_KEYS = ['amount', 'asset', 'created_at', 'fees', 'network', 'payout_id', 'reference', 'review_reasons', 'status', 'to_address', 'tx_hash', 'updated_at'];

describe('payouts API', () => {
  let t: PayoutTestApp;
  const post = (key: string, body: unknown) => api(t.url, '/v1/payouts', { key, body });
  const get = (key: string, id: string) => api(t.url, `/v1/payouts/${id}`, { key });
  const db = () => t.app.services.db;
  const payoutRows = (merchantId: string) => db().selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).execute();
  const reserves = (merchantId: string) => db().selectFrom('ledger_entries').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', 'reserve').execute();

  /** An approved merchant with 100 USDT and one usable whitelisted address. */
  async function funded(amount = '100') {
    const { merchant, key } = await t.merchant();
    const address = newAddress();
    await t.fund(merchant.merchant_id, amount);
    await t.allow(merchant.merchant_id, address);
    return { id: merchant.merchant_id, key, address };
  }

  beforeAll(async () => {
    t = await startPayoutApp();
  });
  afterAll(() => t.close());

  it('creates a payout (202) with exactly the spec fields, reserves amount + fee and records the event', async () => {
    await t.fee('USDT_TRON', '0.5', '1');
    try {
      const m = await funded();
      const body = newPayout(m.address, { amount: '10.25' });
      const r = await post(m.key, body);
      expect(r.status).toBe(202);
      expect(Object.keys(r.body).sort()).toEqual(PAYOUT_KEYS);
      expect(r.body).toMatchObject({
        reference: body.reference,
        asset: 'USDT_TRON',
        network: 'tron',
        to_address: m.address,
        amount: '10.25',
        // 0.5 + 1% of 10.25 = 0.6025
        fees: { network: { payer: 'merchant', amount: '0.6025', charged: '0' } },
        tx_hash: null,
        status: 'pending_review',
      });
      expect(Object.keys(r.body.fees)).toEqual(['network']);
      expect(Object.keys(r.body.fees.network).sort()).toEqual(['amount', 'charged', 'payer']);
      expect(r.body.payout_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r.body.created_at).toBe(t.clock.now().toISOString());
      expect(r.body.updated_at).toBe(r.body.created_at);
      expect(await t.balanceOf(m.id)).toEqual({ available: '89.1475', reserved: '10.8525', total: '100' });
      const events = await db().selectFrom('events').selectAll().where('subject_id', '=', r.body.payout_id).execute();
      expect(events.map((e) => e.type)).toEqual(['payout.pending_review']);
      expect(JSON.parse(events[0]!.data)).toEqual(r.body);
    } finally {
      await t.fee('USDT_TRON', '0', '0');
    }
  });

  it('rounds the percent fee up to the base unit', async () => {
    await t.fee('USDT_TRON', '0', '0.3');
    try {
      const m = await funded();
      // 0.3% of 0.000001 is 0.000000003 → rounds up to 0.000001
      const r = await post(m.key, newPayout(m.address, { amount: '0.000001' }));
      expect(r.body.fees.network.amount).toBe('0.000001');
    } finally {
      await t.fee('USDT_TRON', '0', '0');
    }
  });

  describe('rules 1 and 2: idempotency by reference', () => {
    it('returns the existing payout (200, same body) for the same reference, amount, asset and address', async () => {
      const m = await funded();
      const body = newPayout(m.address);
      const first = await post(m.key, body);
      expect(first.status).toBe(202);
      t.clock.advance(5000);
      const again = await post(m.key, body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      // The same amount written differently is the same amount.
      expect((await post(m.key, { ...body, amount: '10.000' })).status).toBe(200);
      expect(await payoutRows(m.id)).toHaveLength(1);
      expect(await reserves(m.id)).toHaveLength(1);
      expect((await t.balanceOf(m.id)).available).toBe('90');
    });

    it('answers 409 reference_conflict for a different amount, asset or address, and creates nothing', async () => {
      const m = await funded();
      const other = newAddress();
      await t.allow(m.id, other);
      await t.fund(m.id, '100', 'TRX_TRON');
      await t.allow(m.id, m.address, { asset: 'TRX_TRON' });
      const body = newPayout(m.address);
      expect((await post(m.key, body)).status).toBe(202);
      for (const change of [{ amount: '11' }, { asset: 'TRX_TRON' }, { to_address: other }]) {
        const r = await post(m.key, { ...body, ...change });
        expect(r.status, JSON.stringify(change)).toBe(409);
        expect(r.body.error.code).toBe('reference_conflict');
        expect(isErrorBody(r.body)).toBe(true);
      }
      expect(await payoutRows(m.id)).toHaveLength(1);
    });

    it('keeps references per merchant: two merchants may use the same reference', async () => {
      const a = await funded();
      const b = await funded();
      const body = newPayout(a.address);
      expect((await post(a.key, body)).status).toBe(202);
      expect((await post(b.key, { ...body, to_address: b.address })).status).toBe(202);
    });
  });

  describe('rule 3: whitelist', () => {
    it('refuses an address not on the whitelist and one in its delay, saying which, whatever the amount', async () => {
      const m = await funded('5');
      const absent = newAddress();
      const cooling = newAddress();
      await t.allow(m.id, cooling, { delay: '24h' });
      const answers = new Map<string, string>();
      for (const [addr, label] of [[absent, 'absent'], [cooling, 'cooling']] as const) {
        for (const amount of ['1', '1000000']) {
          const r = await post(m.key, newPayout(addr, { amount }));
          expect(r.status).toBe(422);
          expect(r.body.error.code).toBe('address_not_whitelisted');
          const prev = answers.get(label);
          if (prev) expect(r.body.error.message).toBe(prev);
          answers.set(label, r.body.error.message);
        }
      }
      expect(answers.get('absent')).toMatch(/not on the whitelist/);
      expect(answers.get('cooling')).toMatch(/delay before first use has not passed/);
      // A whitelisted address of another asset does not count.
      const trxOnly = newAddress();
      await t.allow(m.id, trxOnly, { asset: 'TRX_TRON' });
      expect((await post(m.key, newPayout(trxOnly, { amount: '1' }))).body.error.code).toBe('address_not_whitelisted');
      expect(await payoutRows(m.id)).toHaveLength(0);
    });

    it('accepts the address once its delay has passed (ManualClock)', async () => {
      const m = await funded();
      const addr = newAddress();
      await t.allow(m.id, addr, { delay: '15m' });
      const body = newPayout(addr);
      t.clock.advance(15 * 60_000 - 1);
      expect((await post(m.key, body)).body.error.code).toBe('address_not_whitelisted');
      t.clock.advance(1);
      expect((await post(m.key, body)).status).toBe(202);
    });

    it('refuses an address removed from the whitelist', async () => {
      const m = await funded();
      await removeFromWhitelist(db(), t.clock, 'test', t.app.services.catalog, m.id, { asset: 'USDT_TRON', address: m.address });
      const r = await post(m.key, newPayout(m.address));
      expect(r.body.error.code).toBe('address_not_whitelisted');
    });
  });

  describe('rules 4 and 5: assets', () => {
    it('answers asset_not_payable for an unknown or receive-only asset', async () => {
      const m = await funded();
      for (const asset of ['FOO_TRON', 'USDD_TRON']) {
        const r = await post(m.key, newPayout(m.address, { asset }));
        expect(r.status, asset).toBe(422);
        expect(r.body.error.code).toBe('asset_not_payable');
      }
    });

    it('answers asset_payouts_disabled while the operator has payouts off; an earlier payout keeps its state and can still be approved', async () => {
      const m = await funded();
      const before = await post(m.key, newPayout(m.address));
      expect(before.status).toBe(202);
      const catalog = t.app.services.catalog;
      await setAssetFlags(db(), t.clock, 'test', catalog, 'USDT_TRON', { payouts: false });
      try {
        const body = newPayout(m.address);
        const r = await post(m.key, body);
        expect(r.status).toBe(422);
        expect(r.body.error.code).toBe('asset_payouts_disabled');
        // The earlier payout: unchanged, readable, replayable, approvable (it stays executable).
        expect((await get(m.key, before.body.payout_id)).body).toEqual(before.body);
        expect((await post(m.key, { reference: before.body.reference, asset: 'USDT_TRON', to_address: m.address, amount: '10' })).status).toBe(200);
        const approved = await approvePayout(db(), t.clock, 'test', before.body.payout_id);
        expect(approved.status).toBe('approved');
        expect((await t.balanceOf(m.id)).reserved).toBe('10');
        // Retry later with the same reference: created once payouts are back on.
        await setAssetFlags(db(), t.clock, 'test', catalog, 'USDT_TRON', { payouts: true });
        expect((await post(m.key, body)).status).toBe(202);
      } finally {
        await setAssetFlags(db(), t.clock, 'test', catalog, 'USDT_TRON', { payouts: true });
      }
    });
  });

  describe('rule 6: halts', () => {
    it('answers 503 payouts_halted without the reason; retries create nothing; existing references still replay', async () => {
      const m = await funded();
      const existing = await post(m.key, newPayout(m.address));
      const catalog = t.app.services.catalog;
      await setHalt(db(), t.clock, 'test', catalog, { halted: true, worker: false, reason: 'hot wallet key rotation' });
      try {
        const body = newPayout(m.address);
        for (let i = 0; i < 3; i++) {
          const r = await post(m.key, body);
          expect(r.status).toBe(503);
          expect(r.body.error.code).toBe('payouts_halted');
          expect(r.body.error.message).not.toMatch(/rotation|USDT/);
        }
        expect(await payoutRows(m.id)).toHaveLength(1);
        expect(await reserves(m.id)).toHaveLength(1);
        const replay = await post(m.key, { reference: existing.body.reference, asset: 'USDT_TRON', to_address: m.address, amount: '10' });
        expect(replay.status).toBe(200);
        expect(replay.body.payout_id).toBe(existing.body.payout_id);
      } finally {
        await setHalt(db(), t.clock, 'test', catalog, { halted: false, worker: false });
      }
      expect((await post(m.key, newPayout(m.address))).status).toBe(202);
    });

    it('halts one asset only with --asset, and never refuses requests for a worker halt', async () => {
      const m = await funded();
      await t.fund(m.id, '100', 'TRX_TRON');
      await t.allow(m.id, m.address, { asset: 'TRX_TRON' });
      const catalog = t.app.services.catalog;
      await setHalt(db(), t.clock, 'test', catalog, { asset: 'TRX_TRON', halted: true, worker: false });
      await setHalt(db(), t.clock, 'test', catalog, { halted: true, worker: true });
      try {
        expect((await post(m.key, newPayout(m.address, { asset: 'TRX_TRON' }))).body.error.code).toBe('payouts_halted');
        expect((await post(m.key, newPayout(m.address))).status).toBe(202);
      } finally {
        await setHalt(db(), t.clock, 'test', catalog, { asset: 'TRX_TRON', halted: false, worker: false });
        await setHalt(db(), t.clock, 'test', catalog, { halted: false, worker: true });
      }
      expect((await post(m.key, newPayout(m.address, { asset: 'TRX_TRON' }))).status).toBe(202);
    });
  });

  describe('balance', () => {
    it('answers insufficient_balance when amount + fee exceed the available balance, and accepts an exact fit', async () => {
      await t.fee('USDT_TRON', '1', '0');
      try {
        const m = await funded('11');
        const over = await post(m.key, newPayout(m.address, { amount: '10.000001' }));
        expect(over.status).toBe(422);
        expect(over.body.error.code).toBe('insufficient_balance');
        expect(await payoutRows(m.id)).toHaveLength(0);
        const exact = await post(m.key, newPayout(m.address, { amount: '10' }));
        expect(exact.status).toBe(202);
        expect(await t.balanceOf(m.id)).toEqual({ available: '0', reserved: '11', total: '11' });
        expect((await post(m.key, newPayout(m.address, { amount: '0.000001' }))).body.error.code).toBe('insufficient_balance');
      } finally {
        await t.fee('USDT_TRON', '0', '0');
      }
    });

    it('uses balances per asset: TRX money does not pay a USDT payout', async () => {
      const { merchant, key } = await t.merchant();
      const addr = newAddress();
      await t.fund(merchant.merchant_id, '1000', 'TRX_TRON');
      await t.allow(merchant.merchant_id, addr);
      expect((await post(key, newPayout(addr))).body.error.code).toBe('insufficient_balance');
    });
  });

  describe('order of checks', () => {
    it('validation → replay → halts → switch → whitelist → balance', async () => {
      const m = await funded('1');
      const catalog = t.app.services.catalog;
      const stranger = newAddress();
      // whitelist before balance (amount far above the balance, address absent)
      expect((await post(m.key, newPayout(stranger, { amount: '500' }))).body.error.code).toBe('address_not_whitelisted');
      await setAssetFlags(db(), t.clock, 'test', catalog, 'USDT_TRON', { payouts: false });
      await setHalt(db(), t.clock, 'test', catalog, { halted: true, worker: false });
      try {
        // halt before the switch and the whitelist
        expect((await post(m.key, newPayout(stranger, { amount: '500' }))).body.error.code).toBe('payouts_halted');
        // receive-only asset (permanent) before the halt (temporary)
        expect((await post(m.key, newPayout(stranger, { asset: 'USDD_TRON' }))).body.error.code).toBe('asset_not_payable');
        // a malformed amount is a 400 before all of them
        const bad = await post(m.key, newPayout(stranger, { amount: '1.0000001' }));
        expect(bad.status).toBe(400);
        expect(bad.body.error.details).toEqual([{ path: 'body.amount', message: 'must have at most 6 decimal places' }]);
        await setHalt(db(), t.clock, 'test', catalog, { halted: false, worker: false });
        // switch before the whitelist
        expect((await post(m.key, newPayout(stranger, { amount: '500' }))).body.error.code).toBe('asset_payouts_disabled');
      } finally {
        await setHalt(db(), t.clock, 'test', catalog, { halted: false, worker: false });
        await setAssetFlags(db(), t.clock, 'test', catalog, 'USDT_TRON', { payouts: true });
      }
    });
  });

  describe('validation', () => {
    it('refuses malformed bodies with 400 validation_failed and the field path', async () => {
      const m = await funded();
      const good = newPayout(m.address);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, amount: '0' }, 'body.amount'],
        [{ ...good, amount: '01' }, 'body.amount'],
        [{ ...good, amount: '-1' }, 'body.amount'],
        [{ ...good, amount: '1e3' }, 'body.amount'],
        [{ ...good, amount: ' 1' }, 'body.amount'],
        [{ ...good, amount: '' }, 'body.amount'],
        [{ ...good, amount: '1'.repeat(101) }, 'body.amount'],
        [{ ...good, amount: 10 }, 'body.amount'],
        [{ ...good, reference: 'has space' }, 'body.reference'],
        [{ ...good, reference: '' }, 'body.reference'],
        [{ ...good, reference: 'x'.repeat(201) }, 'body.reference'],
        [{ ...good, asset: 'usdt_tron' }, 'body.asset'],
        [{ ...good, to_address: 'T123' }, 'body.to_address'],
        [{ ...good, to_address: `${m.address}!` }, 'body.to_address'],
        [{ ...good, to_address: 'T'.repeat(101) }, 'body.to_address'],
        [{ ...good, extra: 1 }, 'body.extra'],
        [{ reference: good.reference, asset: good.asset, to_address: good.to_address }, 'body.amount'],
      ];
      for (const [body, path] of cases) {
        const r = await post(m.key, body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error.code).toBe('validation_failed');
        expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
      }
      expect(await payoutRows(m.id)).toHaveLength(0);
      // Limits of the spec are inclusive.
      expect((await post(m.key, { ...good, reference: '~'.repeat(200) })).status).toBe(202);
    });
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
      expect((await post(m.key, newPayout(m.address, { amount: '20' }))).body.review_reasons).toEqual(['first_payout_to_address']);
      await approvePayout(db(), t.clock, 'test', first.body.payout_id);
      const second = await post(m.key, newPayout(m.address, { amount: '20' }));
      expect(second.body).toMatchObject({ status: 'approved', review_reasons: [] });
      const events = await db().selectFrom('events').select('type').where('subject_id', '=', second.body.payout_id).execute();
      expect(events.map((e) => e.type)).toEqual(['payout.approved']);
      // Today: 20 + 20 + 20 = 60; +40 = 100 is not above the daily limit, +0.000001 more is.
      expect((await post(m.key, newPayout(m.address, { amount: '40' }))).body.review_reasons).toEqual([]);
      expect((await post(m.key, newPayout(m.address, { amount: '0.000001' }))).body.review_reasons).toEqual(['daily_limit_exceeded']);
      expect((await post(m.key, newPayout(m.address, { amount: '60' }))).body.review_reasons).toEqual(['amount_above_auto_approve_limit', 'daily_limit_exceeded']);
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
      expect((await post(m.key, newPayout(m.address, { amount: '0.5' }))).body.review_reasons).toEqual(['daily_limit_exceeded']);
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
        expect(seen.body).toMatchObject({ status: 'rejected', fees: { network: { payer: 'merchant', amount: '1', charged: '0' } } });
        expect(seen.body.updated_at).not.toBe(seen.body.created_at);
        expect(Object.keys(seen.body).sort()).toEqual(PAYOUT_KEYS);
        await expect(approvePayout(db(), t.clock, 'test', r.body.payout_id)).rejects.toMatchObject({ code: 'invalid_state' });
        await expect(rejectPayout(db(), t.clock, 'test', r.body.payout_id, 'again')).rejects.toMatchObject({ code: 'invalid_state' });
        expect(await verifyLedger(db(), m.id, 'USDT_TRON')).toEqual([]);
        const events = await db().selectFrom('events').select(['type', 'data']).where('subject_id', '=', r.body.payout_id).orderBy('seq').execute();
        expect(events.map((e) => e.type)).toEqual(['payout.pending_review', 'payout.rejected']);
        expect(JSON.parse(events[1]!.data)).toEqual(seen.body);
        // A rejected reference stays taken: its replay returns the rejected payout.
        expect((await post(m.key, { reference: r.body.reference, asset: 'USDT_TRON', to_address: m.address, amount: '10' })).body.status).toBe('rejected');
      } finally {
        await t.fee('USDT_TRON', '0', '0');
      }
    });

    it('refuses to approve a payout whose address left the whitelist', async () => {
      const m = await funded();
      const r = await post(m.key, newPayout(m.address));
      await removeFromWhitelist(db(), t.clock, 'test', t.app.services.catalog, m.id, { asset: 'USDT_TRON', address: m.address });
      await expect(approvePayout(db(), t.clock, 'test', r.body.payout_id)).rejects.toMatchObject({ code: 'address_not_whitelisted' });
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
    const warm = async (key: string) => expect((await get(key, '3b241101-e2bb-4255-8caf-4136c566a962')).status).toBe(404);

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
        const results = await Promise.all(Array.from({ length: 20 }, () => post(m.key, newPayout(m.address, { amount: '10' }))));
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
      await setPayoutFee(db(), t.clock, 'test', t.app.services.catalog, { asset: 'USDT_TRON', amount: '3', percent: '0', validFrom: start });
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
    expect(Object.keys(paths['/v1/payouts'].post.responses).sort()).toEqual(['200', '202', '400', '401', '403', '409', '422', '429', '503']);
    expect(Object.keys(paths['/v1/payouts/{id}'].get.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429']);
  });
});
