/**
 * A repeated reference with a malformed amount: validation (400) comes before the replay (409).
 * Real HTTP on loopback over a real SQLite file (usePayoutApp).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isErrorBody } from '../helpers/http.js';
import { newAddress, newPayout, type PayoutTestApp, usePayoutApp } from './fixture.js';

describe('a repeated payout reference', () => {
  const c = usePayoutApp();
  const { post, payoutRows, funded } = c;
  let t: PayoutTestApp;
  beforeAll(() => {
    t = c.app();
  });

  it('answers a malformed amount with 400 validation_failed before the replay, whatever the asset (not 409 reference_conflict)', async () => {
    const m = await funded();
    await t.fund(m.id, '100', 'TRX_TRON');
    await t.allow(m.id, m.address, { asset: 'TRX_TRON' });
    const body = newPayout(m.address);
    expect((await post(m.key, body)).status).toBe(202);
    // A malformed amount is 400 at body.amount, and validation comes before the replay
    // (docs/adr/0007-http-check-order.md): for a reused reference with the payout's own asset and
    // with another asset alike, never 409 reference_conflict.
    for (const change of [
      { asset: 'TRX_TRON', amount: 'abc' },
      { asset: 'TRX_TRON', amount: '0' },
      { asset: 'TRX_TRON', amount: '1.0000001' },
      { asset: 'TRX_TRON', amount: '1.0000001', to_address: newAddress() },
      // The payout's own asset: above what the chain can move is malformed too, as for a new reference.
      { amount: `1${'0'.repeat(90)}` },
    ]) {
      const r = await post(m.key, { ...body, ...change });
      expect(r.status, JSON.stringify(change)).toBe(400);
      expect(isErrorBody(r.body)).toBe(true);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.details).toEqual([{ path: 'body.amount', message: expect.any(String) }]);
    }
    // A well-formed amount in another asset is still a conflict, and an asset unknown to the catalog too.
    for (const change of [
      { asset: 'TRX_TRON', amount: '10' },
      { asset: 'FOO_TRON' },
      { asset: 'FOO_TRON', amount: 'abc' },
    ]) {
      const r = await post(m.key, { ...body, ...change });
      expect(r.status, JSON.stringify(change)).toBe(409);
      expect(r.body.error.code).toBe('reference_conflict');
    }
    expect((await post(m.key, { ...body, amount: '10.0' })).status).toBe(200);
    expect(await payoutRows(m.id)).toHaveLength(1);
  });
});
