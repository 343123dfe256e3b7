/**
 * Assets and their fees through the console over real HTTP: the catalog (paged in catalog order),
 * one asset, the operator's switches with the catalog's locks, the sweep threshold, payout fees
 * and fixed receiving amounts with their confirmation and start-time refusals. Every answer is
 * checked against the served OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';

let t: ConsoleTestApp;
beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
});
afterAll(() => t.close());

const expectError = (r: { status: number; body: any; text: string }, status: number, code: string) => {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error.code, r.text).toBe(code);
};

describe('assets', () => {
  it('lists the catalog in its order, a page at a time', async () => {
    const all = await t.call('/admin/v1/assets');
    expect(all.body.data.map((a: { asset: string }) => a.asset)).toEqual([
      'USDT_TRON',
      'USDC_TRON',
      'USDD_TRON',
      'TRX_TRON',
    ]);
    expect(all.body.next_cursor).toBeNull();
    const first = await t.call('/admin/v1/assets?limit=3');
    expect(first.body.data).toHaveLength(3);
    const rest = await t.call(`/admin/v1/assets?limit=3&cursor=${first.body.next_cursor}`);
    expect(rest.body).toMatchObject({ data: [{ asset: 'TRX_TRON' }], next_cursor: null });
  });

  it('shows one asset with its sweep threshold; an unknown one is asset_not_found', async () => {
    const usdt = await t.call('/admin/v1/assets/USDT_TRON');
    expect(usdt.body).toMatchObject({
      asset: 'USDT_TRON',
      payments: true,
      payouts: true,
      sweep_threshold: expect.any(String),
    });
    expectError(await t.call('/admin/v1/assets/NOPE_TRON'), 404, 'asset_not_found');
  });

  it('switches payouts off and sets the threshold; a locked switch is 409 and changes nothing', async () => {
    const off = await t.call('/admin/v1/assets/USDT_TRON', {
      method: 'PATCH',
      body: { payouts: false, sweep_threshold: '2.5' },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ payouts: false, payments: true, sweep_threshold: '2.5' });
    expect((await t.call('/admin/v1/assets/USDT_TRON')).body).toMatchObject({ payouts: false, sweep_threshold: '2.5' });
    const locked = await t.call('/admin/v1/assets/USDD_TRON', { method: 'PATCH', body: { payouts: true } });
    expectError(locked, 409, 'asset_flag_locked');
    const bad = await t.call('/admin/v1/assets/USDT_TRON', {
      method: 'PATCH',
      body: { payouts: true, sweep_threshold: '1.2345678' },
    });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.error.details[0].path).toBe('body.sweep_threshold');
    expect((await t.call('/admin/v1/assets/USDT_TRON')).body.payouts).toBe(false);
    expectError(await t.call('/admin/v1/assets/USDT_TRON', { method: 'PATCH', body: {} }), 400, 'validation_failed');
    expectError(
      await t.call('/admin/v1/assets/NOPE_TRON', { method: 'PATCH', body: { payouts: true } }),
      404,
      'asset_not_found',
    );
  });
});

describe('asset fees', () => {
  it('sets a payout fee (201); the confirmation refusal names which confirmation is missing', async () => {
    const ok = await t.call('/admin/v1/assets/USDT_TRON/payout-fees', { body: { amount: '1', percent: '0.5' } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ asset: 'USDT_TRON', amount: '1', percent: '0.5' });
    const amount = await t.call('/admin/v1/assets/USDT_TRON/payout-fees', { body: { amount: '6', percent: '1' } });
    expectError(amount, 422, 'payout_fee_confirmation_required');
    expect(amount.body.error.message).toContain('confirm_high_amount');
    expect(amount.body.error.message).not.toContain('confirm_high_rate');
    const rate = await t.call('/admin/v1/assets/USDT_TRON/payout-fees', {
      body: { amount: '6', percent: '4', confirm_high_amount: true },
    });
    expectError(rate, 422, 'payout_fee_confirmation_required');
    expect(rate.body.error.message).toContain('confirm_high_rate');
    expect(rate.body.error.message).not.toContain('confirm_high_amount');
    const both = await t.call('/admin/v1/assets/USDT_TRON/payout-fees', {
      body: { amount: '6', percent: '4', confirm_high_amount: true, confirm_high_rate: true },
    });
    expect(both.status).toBe(201);
  });

  it('refuses a payout fee in the past, of an asset never paid out, or malformed', async () => {
    expectError(
      await t.call('/admin/v1/assets/USDT_TRON/payout-fees', {
        body: { amount: '1', percent: '0', valid_from: '2001-01-01T00:00:00Z' },
      }),
      422,
      'payout_fee_valid_from_in_past',
    );
    expectError(
      await t.call('/admin/v1/assets/NOPE_TRON/payout-fees', { body: { amount: '1', percent: '0' } }),
      422,
      'asset_not_payable',
    );
    const pct = await t.call('/admin/v1/assets/USDT_TRON/payout-fees', { body: { amount: '1', percent: '100' } });
    expectError(pct, 400, 'validation_failed');
    expect(pct.body.error.details[0].path).toBe('body.percent');
  });

  it('sets a fixed receiving amount (201); above 5 units needs confirm_high_amount; the past and unknown assets are refused', async () => {
    const from = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
    const ok = await t.call('/admin/v1/assets/USDT_TRON/invoice-fees', { body: { amount: '0.5', valid_from: from } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toEqual({ asset: 'USDT_TRON', amount: '0.5', valid_from: from });
    const high = await t.call('/admin/v1/assets/USDT_TRON/invoice-fees', { body: { amount: '6' } });
    expectError(high, 422, 'invoice_fee_confirmation_required');
    expect(high.body.error.message).toContain('confirm_high_amount');
    expectError(
      await t.call('/admin/v1/assets/USDT_TRON/invoice-fees', {
        body: { amount: '1', valid_from: '2001-01-01T00:00:00Z' },
      }),
      422,
      'invoice_fee_valid_from_in_past',
    );
    expectError(
      await t.call('/admin/v1/assets/NOPE_TRON/invoice-fees', { body: { amount: '1' } }),
      422,
      'asset_not_supported',
    );
    const amount = await t.call('/admin/v1/assets/USDT_TRON/invoice-fees', { body: { amount: 'a lot' } });
    expect(amount.body.error.details[0].path).toBe('body.amount');
  });

  it('audits the switches, the threshold and the fees under the token id', async () => {
    const rows = await t.app.services.db
      .selectFrom('audit_log')
      .select('action')
      .where('subject_type', '=', 'asset')
      .where('actor', '=', t.tokenId)
      .execute();
    expect(new Set(rows.map((r) => r.action))).toEqual(
      new Set(['asset.set', 'asset.sweep_threshold', 'fee.payout', 'fee.invoice']),
    );
  });
});
