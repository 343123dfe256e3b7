/** The expiry job: created → expired past expires_at, with its event in the same transaction. */
import { commitElsewhereSync } from '../helpers/database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { writeTx } from '../../src/db/database.js';
import { overdueOpen } from '../../src/invoices/store.js';
import { eventsOf } from '../../src/webhooks/outbox.js';
import { expireInvoices } from '../../src/invoices/expiry.js';
import { scheduledJobs } from '../../src/background.js';
import { writeCursor } from '../../src/watcher/store.js';
import { api } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from './fixture.js';

describe('invoice expiry', () => {
  let t: InvoiceTestApp;
  beforeAll(async () => {
    t = await startInvoiceApp();
  });
  afterAll(() => t.close());

  it('expires only created invoices whose expires_at has passed, once, with invoice.expired events', async () => {
    const { db } = t.app.services;
    const m = await t.merchant();
    const short = (await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ expires_in: 60 }) })).body;
    const long = (await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ expires_in: 3600 }) })).body;
    const seen = (await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ expires_in: 60 }) })).body;
    await db.updateTable('invoices').set({ status: 'seen' }).where('id', '=', seen.invoice_id).execute();

    t.clock.advance(60_000);
    expect(await expireInvoices(db, t.clock)).toBe(0); // at expires_at, not yet past it
    t.clock.advance(1);
    expect(await expireInvoices(db, t.clock)).toBe(1);
    expect(await expireInvoices(db, t.clock)).toBe(0);

    const read = async (id: string) => (await api(t.url, `/v1/invoices/${id}`, { key: m.key })).body;
    expect((await read(short.invoice_id)).status).toBe('expired');
    expect((await read(long.invoice_id)).status).toBe('created');
    expect((await read(seen.invoice_id)).status).toBe('seen');

    const events = (await eventsOf(db, m.merchant.merchant_id)).filter((e) => e.type === 'invoice.expired');
    expect(events.map((e) => e.subject_id)).toEqual([short.invoice_id]);
    expect(JSON.parse(events[0]!.data)).toEqual(await read(short.invoice_id));
    // A repeat of the expired invoice's order still returns it, expired.
    const replay = await api(t.url, '/v1/invoices', {
      key: m.key,
      body: { order_id: short.order_id, asset: 'USDT_TRON', amount: '10', expires_in: 60 },
    });
    expect([replay.status, replay.body.status]).toEqual([200, 'expired']);
  });

  it('works through a backlog in batches and respects the scan horizon', async () => {
    const { db } = t.app.services;
    const m = await t.merchant();
    for (let i = 0; i < 7; i++) await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ expires_in: 60 }) });
    t.clock.advance(61_000);
    expect(await expireInvoices(db, t.clock, { horizon: new Date(t.clock.now().getTime() - 120_000) })).toBe(0);
    expect(await expireInvoices(db, t.clock, { batch: 3 })).toBe(7);
    const left = await db
      .selectFrom('invoices')
      .select('id')
      .where('merchant_id', '=', m.merchant.merchant_id)
      .where('status', '=', 'created')
      .execute();
    expect(left).toHaveLength(0);
  });

  it('gives the watcher the overdue created and seen invoices soonest first, the limit counted across both', async () => {
    const { db } = t.app.services;
    const m = await t.merchant();
    const ids: string[] = [];
    for (const s of [300, 60, 240, 120, 360, 180, 420]) {
      ids.push((await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ expires_in: s }) })).body.invoice_id);
      t.clock.advance(1_000);
    }
    for (const i of [1, 2, 5])
      await db.updateTable('invoices').set({ status: 'seen' }).where('id', '=', ids[i]!).execute();
    await db.updateTable('invoices').set({ status: 'confirmed' }).where('id', '=', ids[3]!).execute();
    t.clock.advance(400_000);
    const before = t.clock.now().toISOString();
    // What one `status in (created, seen) order by expires_at` gives, every invoice of the file.
    const expected = await db
      .selectFrom('invoices')
      .select(['id', 'status', 'expires_at'])
      .where('status', 'in', ['created', 'seen'])
      .where('expires_at', '<', before)
      .orderBy('expires_at')
      .execute();
    expect(new Set(expected.map((r) => r.status))).toEqual(new Set(['created', 'seen']));
    expect(expected.map((r) => r.id)).toEqual(expect.arrayContaining([ids[0], ids[1], ids[2], ids[5]]));
    expect(expected.map((r) => r.id)).not.toContain(ids[3]);
    const all = await overdueOpen(db, before, 1_000);
    expect(all.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
    for (let k = 1; k <= expected.length; k++) {
      expect(
        (await overdueOpen(db, before, k)).map((r) => r.expires_at),
        `limit ${k}`,
      ).toEqual(expected.slice(0, k).map((r) => r.expires_at));
    }
  });

  it('a rollback committed after the scheduled job started cannot expire an invoice paid in time: the horizon is read inside the write', async () => {
    const { db } = t.app.services;
    const m = await t.merchant();
    const inv = (await api(t.url, '/v1/invoices', { key: m.key, body: newInvoice({ expires_in: 60 }) })).body;
    const created = t.clock.now().getTime();
    // The watcher has scanned past the expiry (the payment is in a block it scanned)...
    await writeTx(db, (trx) =>
      writeCursor(trx, {
        next_block: 101,
        last_block_time: new Date(created + 61_000).toISOString(),
        head_number: 100,
        solid_number: 81,
        updated_at: t.clock.now().toISOString(),
      }),
    );
    t.clock.advance(62_000);
    // ...and, once the job has started, a fork sends it back to a block from before the expiry
    // (the paying block is orphaned; the rescan will find the payment again).
    let rolledBack = false;
    const clock: Clock = {
      now: () => {
        if (!rolledBack) {
          rolledBack = true;
          commitElsewhereSync(
            t.app.config.databaseUrl,
            `update chain_cursor set next_block = 91, last_block_time = '${new Date(created + 30_000).toISOString()}' where id = 1`,
          );
        }
        return t.clock.now();
      },
    };
    const expiry = scheduledJobs({ ...t.app.services, clock }).find((j) => j.name === 'invoice-expiry');
    await expiry?.run();
    expect(rolledBack).toBe(true);
    expect((await api(t.url, `/v1/invoices/${inv.invoice_id}`, { key: m.key })).body.status).toBe('created');
  });
});
