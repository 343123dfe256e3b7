/**
 * A merchant's money through the console over real HTTP: service fees with their confirmation
 * and start-time refusals, the payout whitelist, and ledger corrections (replayed by reference),
 * each change audited under the token id. Every answer is checked against the served document.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { newAddress } from '../payouts/fixture.js';

let t: ConsoleTestApp;
let merchant: string;
beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
  merchant = (await t.call('/admin/v1/merchants', { body: { name: 'Money' } })).body.merchant_id;
});
afterAll(() => t.close());

const expectError = (r: { status: number; body: any; text: string }, status: number, code: string) => {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error.code, r.text).toBe(code);
};
const post = (path: string, body: unknown) => t.call(`/admin/v1/merchants/${merchant}${path}`, { body });

describe('service fees', () => {
  it('sets a fee (201); a high rate needs confirm_high_rate, named in the message', async () => {
    const ok = await post('/service-fees', { percent: '1.5', payer: 'customer' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body).toMatchObject({ merchant_id: merchant, percent: '1.5', payer: 'customer' });
    const high = await post('/service-fees', { percent: '4', payer: 'merchant' });
    expectError(high, 422, 'service_fee_confirmation_required');
    expect(high.body.error.message).toContain('confirm_high_rate');
    expect(high.body.error.message).not.toContain('--');
    const confirmed = await post('/service-fees', { percent: '4', payer: 'merchant', confirm_high_rate: true });
    expect(confirmed.status).toBe(201);
  });

  it('refuses a start in the past, a malformed start and a malformed percent', async () => {
    expectError(
      await post('/service-fees', { percent: '1', payer: 'merchant', valid_from: '2001-01-01T00:00:00Z' }),
      422,
      'service_fee_valid_from_in_past',
    );
    const when = await post('/service-fees', { percent: '1', payer: 'merchant', valid_from: 'tomorrow' });
    expectError(when, 400, 'validation_failed');
    expect(when.body.error.details[0].path).toBe('body.valid_from');
    const pct = await post('/service-fees', { percent: 'ten', payer: 'merchant' });
    expect(pct.body.error.details[0].path).toBe('body.percent');
    expectError(
      await t.call(`/admin/v1/merchants/${randomUUID()}/service-fees`, { body: { percent: '1', payer: 'merchant' } }),
      404,
      'merchant_not_found',
    );
  });
});

describe('whitelist', () => {
  it('adds (201), re-adds unchanged (200), never shortens a delay, lists a page at a time, removes', async () => {
    const address = newAddress();
    const added = await post('/whitelist', { asset: 'USDT_TRON', address, delay: '1h' });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({
      created: true,
      delay_extended: false,
      entry: { address, asset: 'USDT_TRON', usable: false },
    });
    const again = await post('/whitelist', { asset: 'USDT_TRON', address });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, delay_extended: false });
    expect(again.body.entry.usable_from).toBe(added.body.entry.usable_from);
    const shorter = await post('/whitelist', { asset: 'USDT_TRON', address, delay: '0' });
    expect(shorter.status).toBe(409);
    expect(shorter.body.error.code).toBe('invalid_state');
    const longer = await post('/whitelist', { asset: 'USDT_TRON', address, delay: '2h' });
    expect(longer.status).toBe(200);
    expect(longer.body.delay_extended).toBe(true);
    expect(Date.parse(longer.body.entry.usable_from) - Date.parse(added.body.entry.usable_from)).toBe(3_600_000);
    await post('/whitelist', { asset: 'USDT_TRON', address: newAddress(), delay: '0' });

    const page = await t.call(`/admin/v1/merchants/${merchant}/whitelist?limit=1&asset=USDT_TRON`);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    const rest = await t.call(
      `/admin/v1/merchants/${merchant}/whitelist?limit=1&asset=USDT_TRON&cursor=${page.body.next_cursor}`,
    );
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.data[0].entry_id).not.toBe(page.body.data[0].entry_id);

    const removed = await t.call(`/admin/v1/merchants/${merchant}/whitelist/USDT_TRON/${address}`, {
      method: 'DELETE',
    });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ address, removed_by: t.tokenId, usable: false });
    expectError(
      await t.call(`/admin/v1/merchants/${merchant}/whitelist/USDT_TRON/${address}`, { method: 'DELETE' }),
      422,
      'address_not_whitelisted',
    );
    const live = await t.call(`/admin/v1/merchants/${merchant}/whitelist`);
    expect(live.body.data.map((e: { address: string }) => e.address)).not.toContain(address);
    const withRemoved = await t.call(`/admin/v1/merchants/${merchant}/whitelist?include_removed=true`);
    expect(withRemoved.body.data.map((e: { address: string }) => e.address)).toContain(address);
  });

  it('refuses a bad address or delay as validation failures, an unknown asset as asset_not_found', async () => {
    const bad = await post('/whitelist', { asset: 'USDT_TRON', address: 'TNotAnAddress' });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.error.details[0].path).toBe('body.address');
    const delay = await post('/whitelist', { asset: 'USDT_TRON', address: newAddress(), delay: 'forever' });
    expect(delay.body.error.details[0].path).toBe('body.delay');
    expectError(await post('/whitelist', { asset: 'NOPE_TRON', address: newAddress() }), 404, 'asset_not_found');
  });
});

describe('ledger corrections', () => {
  it('credits (201), replays a reference (200), refuses a conflicting one and an overdraft', async () => {
    const credit = await post('/ledger-entries', {
      kind: 'credit',
      asset: 'USDT_TRON',
      amount: '250',
      memo: 'ticket 4411',
      reference: 'T-4411',
    });
    expect(credit.status, credit.text).toBe(201);
    expect(credit.body).toMatchObject({ amount: '250', replayed: false, balance: { available: '250' } });
    const replay = await post('/ledger-entries', {
      kind: 'credit',
      asset: 'USDT_TRON',
      amount: '250',
      memo: 'ticket 4411',
      reference: 'T-4411',
    });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ entry_id: credit.body.entry_id, replayed: true });
    expectError(
      await post('/ledger-entries', {
        kind: 'credit',
        asset: 'USDT_TRON',
        amount: '9',
        memo: 'x',
        reference: 'T-4411',
      }),
      409,
      'reference_conflict',
    );
    expectError(
      await post('/ledger-entries', { kind: 'debit', asset: 'USDT_TRON', amount: '1000', memo: 'too much' }),
      422,
      'insufficient_balance',
    );
    const debit = await post('/ledger-entries', { kind: 'debit', asset: 'USDT_TRON', amount: '50', memo: 'undo' });
    expect(debit.status).toBe(201);
    const balances = await t.call(`/admin/v1/merchants/${merchant}/balances`);
    expect(balances.body.balances).toEqual([{ asset: 'USDT_TRON', available: '200', reserved: '0', total: '200' }]);
    const amount = await post('/ledger-entries', { kind: 'credit', asset: 'USDT_TRON', amount: '-1', memo: 'x' });
    expect(amount.body.error.details[0].path).toBe('body.amount');
    expectError(
      await post('/ledger-entries', { kind: 'refund', asset: 'USDT_TRON', amount: '1', memo: 'x' }),
      400,
      'validation_failed',
    );
  });

  it('audits every correction, fee and whitelist change under the token id', async () => {
    const rows = await t.app.services.db
      .selectFrom('audit_log')
      .select('action')
      .where('merchant_id', '=', merchant)
      .where('actor', '=', t.tokenId)
      .where('action', '<>', 'merchant.create')
      .execute();
    expect(new Set(rows.map((r) => r.action))).toEqual(
      new Set([
        'fee.service',
        'whitelist.add',
        'whitelist.delay_extended',
        'whitelist.remove',
        'ledger.credit',
        'ledger.debit',
      ]),
    );
  });
});
