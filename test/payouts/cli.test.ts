/**
 * The operator's CLI for payouts, run as real processes (bin/dev.js) against the SQLite file of a
 * running app, as on a server: credit, whitelist, limits, fees, review, halts, balances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { newAddress, newPayout, startPayoutApp, type PayoutTestApp } from './fixture.js';

describe('payout CLI', () => {
  let t: PayoutTestApp;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli([...args, '--json'], env);

  beforeAll(async () => {
    // The CLI runs on the system clock; the app's clock starts now and is moved past CLI delays.
    t = await startPayoutApp({ clock: new ManualClock(new Date()) });
    env = { DATABASE_URL: t.app.config.databaseUrl, TRON_NETWORK: 'devnet' };
  });
  afterAll(() => t.close());

  it('whitelist → credit → payout → review (approve, reject) → balance, every action audited', async () => {
    const { merchant, key } = await t.merchant();
    const id = merchant.merchant_id;
    const address = newAddress();

    const [credit, added, limits] = await Promise.all([
      cli('ledger', 'credit', id, '--asset', 'USDT_TRON', '--amount', '100', '--memo', 'opening balance'),
      cli('whitelist', 'add', id, '--asset', 'USDT_TRON', '--address', address, '--delay', '1s'),
      cli('merchant', 'update', id, '--payout-auto-approve-limit', '50', '--payout-daily-limit', 'none'),
    ]);
    expect(credit.code, credit.stdout + credit.stderr).toBe(0);
    expect(credit.json).toMatchObject({
      merchant_id: id,
      asset: 'USDT_TRON',
      amount: '100',
      balance: { available: '100', reserved: '0' },
    });
    expect(added.code, added.stdout + added.stderr).toBe(0);
    expect(added.json).toMatchObject({ created: true, entry: { address, asset: 'USDT_TRON', usable: false } });
    expect(limits.json).toMatchObject({ merchant_id: id, payout_auto_approve_limit: '50', payout_daily_limit: 'none' });

    // Inside the delay, the API refuses; after it, the payout is created and awaits review.
    const body = newPayout(address, { amount: '20' });
    expect((await api(t.url, '/v1/payouts', { key, body })).body.error.code).toBe('address_not_whitelisted');
    t.clock.advance(60_000);
    const created = await api(t.url, '/v1/payouts', { key, body });
    expect(created.status).toBe(202);
    expect(created.body.review_reasons).toEqual(['first_payout_to_address']);
    const second = await api(t.url, '/v1/payouts', { key, body: newPayout(address, { amount: '30' }) });

    // Ids are UUIDs stored in lower case: an upper-case copy names the same record, as on the API.
    const [list, listed] = await Promise.all([
      cli('payout', 'list', '--status', 'pending_review', '--merchant', id.toUpperCase()),
      cli('whitelist', 'list', id.toUpperCase()),
    ]);
    expect(list.json.data.map((p: { payout_id: string }) => p.payout_id).sort()).toEqual(
      [created.body.payout_id, second.body.payout_id].sort(),
    );
    expect(listed.json.data).toHaveLength(1);
    // A terminal of 120 columns shows each payout on one line; --json has every field.
    const human = await runCli(['payout', 'list', '--merchant', id], env);
    expect(human.stdout).toMatch(/^payout_id\s+status\s+asset\s+amount\s+to_address$/m);
    expect(human.stdout).toContain(created.body.payout_id);
    for (const line of human.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(120);

    // The CLI runs on the system clock and approval checks the whitelist entry again: let its 1 s
    // delay pass there too.
    await new Promise((r) => setTimeout(r, 1_100));
    const [approved, rejected] = await Promise.all([
      cli('payout', 'approve', created.body.payout_id.toUpperCase()),
      cli('payout', 'reject', second.body.payout_id, '--reason', 'duplicate request'),
    ]);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(approved.json).toMatchObject({
      payout_id: created.body.payout_id,
      status: 'approved',
      reviewed_by: expect.stringMatching(/^cli:/),
    });
    expect(rejected.json).toMatchObject({
      status: 'rejected',
      reject_reason: 'duplicate request',
      fees: { network: { charged: '0' } },
    });
    expect((await api(t.url, `/v1/payouts/${created.body.payout_id}`, { key })).body.status).toBe('approved');

    const [again, balance] = await Promise.all([
      cli('payout', 'approve', created.body.payout_id),
      cli('merchant', 'balance', id),
    ]);
    expect(again.code).toBe(1);
    expect(again.json).toEqual({ error: { code: 'invalid_state', message: expect.stringMatching(/approved/) } });
    expect(balance.json).toEqual({
      merchant_id: id,
      balances: [{ asset: 'USDT_TRON', available: '80', reserved: '20', total: '100' }],
    });

    const audit = await t.app.services.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('merchant_id', '=', id)
      .where('actor', 'like', 'cli:%')
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual([
      'ledger.credit',
      'merchant.payout_limits',
      'payout.approve',
      'payout.reject',
      'whitelist.add',
    ]);
  });

  it('halt and resume: new requests get 503 while halted', async () => {
    const { merchant, key } = await t.merchant();
    const address = newAddress();
    await t.fund(merchant.merchant_id, '10');
    await t.allow(merchant.merchant_id, address);
    const halt = await cli('payout', 'halt', '--asset', 'USDT_TRON', '--reason', 'incident 12');
    expect(halt.json).toEqual({
      halts: [expect.objectContaining({ scope: 'USDT_TRON', requests_halted: true, worker_halted: false })],
    });
    const body = newPayout(address, { amount: '1' });
    const refused = await api(t.url, '/v1/payouts', { key, body });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toEqual({ code: 'payouts_halted', message: expect.not.stringMatching(/incident/) });
    const resume = await cli('payout', 'resume', '--asset', 'USDT_TRON');
    expect(resume.json).toEqual({ halts: [] });
    expect((await api(t.url, '/v1/payouts', { key, body })).status).toBe(202);
  });

  it('answers with the spec error codes', async () => {
    const { merchant } = await t.merchant();
    const id = merchant.merchant_id;
    const results = await Promise.all([
      cli('payout', 'approve', '3b241101-e2bb-4255-8caf-4136c566a962'),
      cli('merchant', 'balance', '3b241101-e2bb-4255-8caf-4136c566a962'),
      cli('ledger', 'credit', id, '--asset', 'NOPE_TRON', '--amount', '1', '--memo', 'x'),
      cli('fee', 'payout', '--asset', 'USDT_TRON', '--amount', '6', '--percent', '1'),
      cli('fee', 'payout', '--asset', 'USDD_TRON', '--amount', '1', '--percent', '1'),
      cli(
        'fee',
        'payout',
        '--asset',
        'USDT_TRON',
        '--amount',
        '1',
        '--percent',
        '1',
        '--valid-from',
        '2020-01-01T00:00:00Z',
      ),
      cli('whitelist', 'remove', id, '--asset', 'USDT_TRON', '--address', newAddress()),
      cli('whitelist', 'add', id, '--asset', 'USDT_TRON', '--address', 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdX'),
    ]);
    expect(results.map((r) => r.json?.error?.code)).toEqual([
      'payout_not_found',
      'merchant_not_found',
      'asset_not_found',
      'payout_fee_confirmation_required',
      'asset_not_payable',
      'payout_fee_valid_from_in_past',
      'address_not_whitelisted',
      'invalid_argument',
    ]);
    expect(results.every((r) => r.code === 1)).toBe(true);
    expect(results[3]!.json.error.message).toMatch(/--confirm-high-amount/);
    const ok = await cli(
      'fee',
      'payout',
      '--asset',
      'TRX_TRON',
      '--amount',
      '6',
      '--percent',
      '4',
      '--confirm-high-amount',
      '--confirm-high-rate',
    );
    expect(ok.json).toMatchObject({ asset: 'TRX_TRON', amount: '6', percent: '4' });
  });
});
