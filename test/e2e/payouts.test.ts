/**
 * POST /v1/payouts and GET /v1/payouts/{id} over real HTTP: the checks, review and limits of
 * docs/adr/0019-payout-requests.md.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { setAssetFlags } from '../../src/assets/service.js';
import { setHalt } from '../../src/payouts/halts.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { removeFromWhitelist } from '../../src/whitelist/service.js';
import { isErrorBody } from '../helpers/http.js';
import { newAddress, newPayout, PAYOUT_KEYS, type PayoutTestApp, usePayoutApp } from '../payouts/fixture.js';

describe('payouts API', () => {
  const c = usePayoutApp();
  const { post, get, db, payoutRows, reserves, funded } = c;
  let t: PayoutTestApp;
  beforeAll(() => {
    t = c.app();
  });

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
      // An asset outside the catalog is a difference too.
      for (const change of [{ amount: '11' }, { asset: 'TRX_TRON' }, { to_address: other }, { asset: 'FOO_TRON' }]) {
        const r = await post(m.key, { ...body, ...change });
        expect(r.status, JSON.stringify(change)).toBe(409);
        expect(r.body.error.code).toBe('reference_conflict');
        expect(isErrorBody(r.body)).toBe(true);
      }
      // A malformed amount is a validation error even on a replay.
      const bad = await post(m.key, { ...body, amount: '10.0000001' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual([{ path: 'body.amount', message: expect.any(String) }]);
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
      for (const [addr, label] of [
        [absent, 'absent'],
        [cooling, 'cooling'],
      ] as const) {
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
      await removeFromWhitelist(db(), t.clock, 'test', t.app.services.catalog, m.id, {
        asset: 'USDT_TRON',
        address: m.address,
      });
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
        expect(
          (
            await post(m.key, {
              reference: before.body.reference,
              asset: 'USDT_TRON',
              to_address: m.address,
              amount: '10',
            })
          ).status,
        ).toBe(200);
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
        const replay = await post(m.key, {
          reference: existing.body.reference,
          asset: 'USDT_TRON',
          to_address: m.address,
          amount: '10',
        });
        expect(replay.status).toBe(200);
        expect(replay.body.payout_id).toBe(existing.body.payout_id);
      } finally {
        await setHalt(db(), t.clock, 'test', catalog, { halted: false, worker: false });
      }
      expect((await post(m.key, newPayout(m.address))).status).toBe(202);
    });

    it('halts one asset only with --asset; a worker halt refuses requests too', async () => {
      const m = await funded();
      await t.fund(m.id, '100', 'TRX_TRON');
      await t.allow(m.id, m.address, { asset: 'TRX_TRON' });
      const catalog = t.app.services.catalog;
      await setHalt(db(), t.clock, 'test', catalog, { asset: 'TRX_TRON', halted: true, worker: false });
      try {
        expect((await post(m.key, newPayout(m.address, { asset: 'TRX_TRON' }))).body.error.code).toBe('payouts_halted');
        expect((await post(m.key, newPayout(m.address))).status).toBe(202);
        await setHalt(db(), t.clock, 'test', catalog, { halted: true, worker: true });
        expect((await post(m.key, newPayout(m.address))).body.error.code).toBe('payouts_halted');
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
        expect((await post(m.key, newPayout(m.address, { amount: '0.000001' }))).body.error.code).toBe(
          'insufficient_balance',
        );
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
      expect((await post(m.key, newPayout(stranger, { amount: '500' }))).body.error.code).toBe(
        'address_not_whitelisted',
      );
      await setAssetFlags(db(), t.clock, 'test', catalog, 'USDT_TRON', { payouts: false });
      await setHalt(db(), t.clock, 'test', catalog, { halted: true, worker: false });
      try {
        // halt before the switch and the whitelist
        expect((await post(m.key, newPayout(stranger, { amount: '500' }))).body.error.code).toBe('payouts_halted');
        // receive-only asset (permanent) before the halt (temporary)
        expect((await post(m.key, newPayout(stranger, { asset: 'USDD_TRON' }))).body.error.code).toBe(
          'asset_not_payable',
        );
        // a malformed amount is a 400 before all of them
        const bad = await post(m.key, newPayout(stranger, { amount: '1.0000001' }));
        expect(bad.status).toBe(400);
        expect(bad.body.error.details).toEqual([
          { path: 'body.amount', message: 'must have at most 6 decimal places' },
        ]);
        await setHalt(db(), t.clock, 'test', catalog, { halted: false, worker: false });
        // switch before the whitelist
        expect((await post(m.key, newPayout(stranger, { amount: '500' }))).body.error.code).toBe(
          'asset_payouts_disabled',
        );
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
});
