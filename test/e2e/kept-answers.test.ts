/**
 * GET /v1/payouts/{id} and GET /v1/invoices/{id} answer repeated reads from kept answers
 * (db/view-cache.ts): byte for byte and header for header what the database read gives, never a
 * state older than a change this process committed (operator action, worker, raw SQL), another
 * process's commit within OTHERS_CHECK_MS, and never another merchant's object.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { OTHERS_CHECK_MS } from '../../src/db/view-cache.js';
import { approvePayout, rejectPayout } from '../../src/payouts/operator.js';
import { api } from '../helpers/http.js';
import { startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';
import { newPayout, usePayoutApp } from '../payouts/fixture.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kept answers of GET routes', () => {
  const c = usePayoutApp();
  const { post, get, db, funded } = c;
  const kept = () => c.app().app.services.views!;

  it('answers a repeated read with the same bytes and headers as the first (database) read', async () => {
    const m = await funded();
    const created = await post(m.key, newPayout(m.address));
    const first = await get(m.key, created.body.payout_id);
    expect(kept().payouts.lookup(created.body.payout_id, m.id)).toBe(first.text);
    const again = await get(m.key, created.body.payout_id);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    for (const h of ['content-type', 'content-length', 'x-ratelimit-limit']) expect(again.headers.get(h)).toBe(first.headers.get(h));
    expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    expect(again.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('shows an operator decision made in this process at once', async () => {
    const m = await funded();
    const a = await post(m.key, newPayout(m.address));
    const b = await post(m.key, newPayout(m.address, { amount: '2' }));
    expect((await get(m.key, a.body.payout_id)).body.status).toBe('pending_review');
    expect((await get(m.key, b.body.payout_id)).body.status).toBe('pending_review');
    // Both are kept now: the answers below come from the database only if the writes dropped them.
    expect(kept().payouts.lookup(a.body.payout_id, m.id)).toContain('pending_review');
    expect(kept().payouts.lookup(b.body.payout_id, m.id)).toContain('pending_review');
    await approvePayout(db(), c.app().clock, 'test', a.body.payout_id);
    await rejectPayout(db(), c.app().clock, 'test', b.body.payout_id, 'not today');
    expect((await get(m.key, a.body.payout_id)).body.status).toBe('approved');
    expect((await get(m.key, b.body.payout_id)).body.status).toBe('rejected');
    // A change by raw SQL on the app's connection (no store function) drops it as well.
    await sql`update payouts set tx_hash = ${'ab'.repeat(32)} where id = ${a.body.payout_id}`.execute(db());
    expect((await get(m.key, a.body.payout_id)).body.tx_hash).toBe('ab'.repeat(32));
  });

  it("shows another process's decision (the CLI's connection) within OTHERS_CHECK_MS", async () => {
    const m = await funded();
    const p = await post(m.key, newPayout(m.address));
    expect((await get(m.key, p.body.payout_id)).body.status).toBe('pending_review');
    expect(kept().payouts.lookup(p.body.payout_id, m.id)).toContain('pending_review');
    const cli = openDatabase(c.app().app.config.databasePath);
    try {
      await approvePayout(cli.db, c.app().clock, 'cli', p.body.payout_id);
    } finally {
      await cli.close();
    }
    await sleep(OTHERS_CHECK_MS + 5);
    expect((await get(m.key, p.body.payout_id)).body.status).toBe('approved');
  });

  it("answers 404 to another merchant reading a kept payout, and the owner's answer stays", async () => {
    const m = await funded();
    const other = await funded();
    const p = await post(m.key, newPayout(m.address));
    const mine = await get(m.key, p.body.payout_id);
    const theirs = await get(other.key, p.body.payout_id);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('payout_not_found');
    expect((await get(m.key, p.body.payout_id)).text).toBe(mine.text);
  });
});

describe('kept answers of GET /v1/invoices/{id}', () => {
  let t: InvoiceTestApp;
  beforeAll(async () => {
    t = await startInvoiceApp();
  });
  afterAll(() => t.close());

  it('shows an invoice changed by this process at once, deposits included', async () => {
    const { key, merchant } = await t.merchant();
    const created = await api(t.url, '/v1/invoices', { key, body: { order_id: 'kept-1', asset: 'USDT_TRON', amount: '10', expires_in: 3600 } });
    expect(created.status).toBe(201);
    const id = created.body.invoice_id as string;
    const first = await api(t.url, `/v1/invoices/${id}`, { key });
    expect(first.text).toBe(created.text);
    expect(t.app.services.views!.invoices.lookup(id, merchant.merchant_id)).toBe(first.text);
    // What the watcher writes when a payment arrives: the invoice's status and a deposit row.
    const now = new Date().toISOString();
    await t.app.services.db.transaction().execute(async (trx) => {
      await sql`update invoices set status = 'seen', amount_received = '10000000', updated_at = ${now} where id = ${id}`.execute(trx);
      await sql`insert into deposits (id, merchant_id, invoice_id, address, asset, decimals, tx_hash, log_index, block_number, block_hash, block_time, amount, confirmations, final, status, late, created_at, updated_at)
        select ${'dep-' + id}, merchant_id, id, address, asset, decimals, ${'cd'.repeat(32)}, 0, 10, ${'ef'.repeat(32)}, ${now}, '10000000', 1, 0, 'seen', 0, ${now}, ${now} from invoices where id = ${id}`.execute(trx);
    });
    const after = await api(t.url, `/v1/invoices/${id}`, { key });
    expect(after.body.status).toBe('seen');
    expect(after.body.amount_received).toBe('10');
    expect(after.body.deposits).toEqual([{ tx_hash: 'cd'.repeat(32), amount: '10', confirmations: 1, status: 'seen', block_time: now, late: false }]);
    await sql`update deposits set confirmations = 5 where invoice_id = ${id}`.execute(t.app.services.db);
    expect((await api(t.url, `/v1/invoices/${id}`, { key })).body.deposits[0].confirmations).toBe(5);
  });
});
