/**
 * The whole path in the real app: events from real flows (invoice creation over /v1, the expiry
 * job) reach a receiver through the dispatcher worker of `serve`; a receiver that is down gets
 * everything in order once back, and a gateway restart in the middle of a request loses nothing
 * and duplicates nothing.
 */
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { buildApp, type App } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { issueKey } from '../../src/keys/service.js';
import { changeMerchant, createMerchant } from '../../src/merchants/service.js';
import { initWallet } from '../../src/wallet/service.js';
import { DISPATCHER_NAME } from '../../src/webhooks/dispatcher.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { expireInvoices } from '../../src/invoices/expiry.js';
import { tempDir } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { api } from '../helpers/http.js';
import { CHEAP_SCRYPT, newInvoice, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { startReceiver, type Answer } from './fixture.js';

const dir = tempDir('paygate-webhooks-e2e-');
const database = await testDatabaseUrl(path.join(dir, 'paygate.db'));
const config = parseConfig({
  ADMIN_PORT: '0',
  CABINET_PORT: '0',
  PAY_PORT: '0',
  DATABASE_URL: database.url,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
  TRON_NETWORK: 'devnet',
  WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
  WALLET_PASSPHRASE: TEST_PASSPHRASE,
});
const clock = new ManualClock(new Date());
const open: App[] = [];

async function serve(): Promise<{ app: App; url: string }> {
  // Only the dispatcher and no scheduled jobs: the test runs the expiry job itself.
  const app = await buildApp(config, {
    clock,
    workerHost: { renewMs: 50, jobs: [] },
  });
  open.push(app);
  return { app, url: await app.start() };
}

afterAll(async () => {
  for (const a of open) await a.stop();
  await database.drop();
});

describe('webhooks through serve', () => {
  it('delivers every event in order across a receiver outage and a gateway restart mid-request', async () => {
    let mode: 'down' | 'hang' | 'up' = 'down';
    let hung: ((a: Answer) => void) | null = null;
    const r = await startReceiver(() => {
      if (mode === 'down') return { status: 503 };
      if (mode === 'hang') return new Promise<Answer>((resolve) => (hung = resolve));
      return { status: 200, body: 'ok' };
    });

    const first = await serve();
    const db = first.app.services.db;
    await initWallet(db, clock, 'test', config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
    let merchant = await createMerchant(db, clock, 'test', { name: 'Webhook shop' });
    merchant = await changeMerchant(db, clock, 'test', merchant.merchant_id, 'approve');
    const key = (await issueKey(db, clock, 'test', merchant.merchant_id)).api_key;
    const { secret } = await setEndpoint(db, clock, 'test', merchant.merchant_id, { url: r.url, allowPrivate: true });

    const created = [];
    for (const expires_in of [60, 600, 900]) {
      const res = await api(first.url, '/v1/invoices', { key, body: newInvoice({ expires_in }) });
      expect(res.status).toBe(201);
      created.push(res.body.invoice_id as string);
    }
    clock.advance(61_000);
    expect(await expireInvoices(db, clock)).toBe(1);
    const expected = await db
      .selectFrom('events')
      .select(['id', 'type', 'subject_id', 'merchant_seq'])
      .where('merchant_id', '=', merchant.merchant_id)
      .orderBy('merchant_seq')
      .execute();
    expect(expected.map((e) => [e.type, e.subject_id])).toEqual([
      ['invoice.created', created[0]],
      ['invoice.created', created[1]],
      ['invoice.created', created[2]],
      ['invoice.expired', created[0]],
    ]);
    expect(expected.map((e) => e.merchant_seq)).toEqual([1, 2, 3, 4]);

    // The receiver is down: only the first event is tried, again and again.
    await vi.waitFor(() => expect(r.received.length).toBeGreaterThanOrEqual(1), { timeout: 30_000 });
    // Its failure is recorded (next attempt 24-36 s later) before the clock moves: recorded after
    // the move, the next attempt would fall after the advanced clock and never come.
    await vi.waitFor(
      async () => {
        const d = await db
          .selectFrom('webhook_deliveries')
          .select(['attempts', 'claimed_by'])
          .where('event_id', '=', expected[0]!.id)
          .executeTakeFirstOrThrow();
        expect(d).toMatchObject({ claimed_by: null });
        expect(d.attempts).toBeGreaterThanOrEqual(1);
      },
      { timeout: 30_000 },
    );
    mode = 'hang';
    clock.advance(60_000);
    first.app.workers?.wake(DISPATCHER_NAME);
    await vi.waitFor(() => expect(hung).not.toBeNull(), { timeout: 30_000 });
    // Restart while that request is open: the attempt is given back, not lost.
    await first.app.stop();
    (hung as unknown as (a: Answer) => void)({ status: 503 });
    expect(new Set(r.received.map((x) => x.json.id))).toEqual(new Set([expected[0]!.id]));

    mode = 'up';
    const second = await serve();
    second.app.workers?.wake(DISPATCHER_NAME);
    await vi.waitFor(() => expect(r.accepted()).toHaveLength(4), { timeout: 30_000 });
    expect(r.accepted().map((x) => x.json.id)).toEqual(expected.map((e) => e.id));
    for (const got of r.accepted()) {
      const body = new Webhook(secret as string).verify(got.body, got.headers as Record<string, string>) as {
        type: string;
        data: { invoice_id: string };
      };
      expect(body.data.invoice_id).toBe(expected.find((e) => e.id === got.json.id)!.subject_id);
    }
    // The expired invoice's event carries the invoice as the API shows it.
    const shown = await api(second.url, `/v1/invoices/${created[0]}`, { key });
    expect(r.accepted()[3]!.json.data).toEqual(shown.body);
    const states = await second.app.services.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('merchant_id', '=', merchant.merchant_id)
      .execute();
    expect(states.map((s) => s.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    await r.close();
    // Deadlines, not timings: on a loaded machine a step may take seconds.
  }, 150_000);
});
