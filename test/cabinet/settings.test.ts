/**
 * The owner's webhook self-service (the endpoint under the SSRF rules, the secret shown once, a
 * test event), deliveries linked to their invoice or payout and marked while retrying, the
 * whitelist with its delays, the payout limits, and the dashboard's totals. Real HTTP on both
 * listeners, the dispatcher delivering to a real receiver.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listAudit } from '../../src/audit/store.js';
import { updateMerchant } from '../../src/merchants/settings.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import type { ManualClock } from '../../src/clock.js';
import { api } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { startReceiver, type Receiver } from '../webhooks/fixture.js';
import { startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;
let receiver: Receiver;
let refusing = false;

beforeAll(async () => {
  t = await startCabinetApp();
  receiver = await startReceiver(() => ({ status: refusing ? 503 : 204 }));
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

async function ownShop(email: string) {
  const { merchant, key } = await t.merchant({ name: 'Shop', siteUrl: 'https://shop.example' });
  const owner = await t.owner(email, [merchant.merchant_id]);
  return { id: merchant.merchant_id, key, token: await t.signIn(owner.email, owner.password) };
}

describe("the owner's webhook endpoint", () => {
  it('sets an https URL with a secret shown once, rotates it, and refuses private targets without changing anything', async () => {
    const shop = await ownShop('hook@shop.example');
    const put = (body: Record<string, unknown>) =>
      t.call(`/cabinet/v1/merchants/${shop.id}/webhook`, shop.token, { method: 'PUT', body });
    const merchant = () => t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token);
    expect((await merchant()).body.webhook).toBeNull();

    const first = await put({ url: 'https://hooks.shop.example/paygate' });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      url: 'https://hooks.shop.example/paygate',
      allow_private: false,
      previous_secret_until: null,
    });
    expect(first.body.secret).toMatch(/^whsec_/);
    // Shown once: the merchant view and a plain change never carry it.
    expect((await merchant()).body.webhook).toMatchObject({ url: 'https://hooks.shop.example/paygate', secret: null });
    expect((await put({ url: 'https://hooks.shop.example/v2' })).body.secret).toBeNull();
    const rotated = await put({ url: 'https://hooks.shop.example/v2', rotate_secret: true });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first.body.secret);
    expect(rotated.body.previous_secret_until).toEqual(expect.any(String));

    for (const url of [
      'http://hooks.shop.example/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest',
    ]) {
      const r = await put({ url });
      expect([r.status, r.body.error.code, r.body.error.details[0].path], url).toEqual([
        422,
        'webhook_url_not_allowed',
        'body.url',
      ]);
    }
    expect((await merchant()).body.webhook.url).toBe('https://hooks.shop.example/v2');
    const actions = (await listAudit(t.app.services.db, 'merchant', shop.id)).filter(
      (e) => e.actor === 'owner:hook@shop.example',
    );
    expect(actions.map((e) => e.action)).toEqual(['merchant.webhook', 'merchant.webhook', 'merchant.webhook']);
  });

  it('tests a host name that resolves to a private address without saying what it resolves to', async () => {
    const shop = await ownShop('names@shop.example');
    const base = `/cabinet/v1/merchants/${shop.id}`;
    // A name is checked when it is used: localhost resolves to loopback, which is refused.
    const set = await t.call(`${base}/webhook`, shop.token, { method: 'PUT', body: { url: 'https://localhost/hook' } });
    expect(set.status, set.text).toBe(200);
    const test = await t.call(`${base}/webhook/test`, shop.token, { method: 'POST' });
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/^refused target: not a public address/),
    });
    expect(test.text).not.toMatch(/127\.0\.0\.1|::1|loopback/);
  });

  it('words a refused delivery for the owner in the delivery log: a plain sentence, never the resolved address', async () => {
    const shop = await ownShop('log@shop.example');
    const base = `/cabinet/v1/merchants/${shop.id}`;
    const set = await t.call(`${base}/webhook`, shop.token, { method: 'PUT', body: { url: 'https://localhost/hook' } });
    expect(set.status, set.text).toBe(200);
    const invoice = await api(t.url, '/v1/invoices', {
      key: shop.key,
      body: { order_id: 'log-1', asset: 'USDT_TRON', amount: '1', expires_in: 600 },
    });
    expect(invoice.status, invoice.text).toBe(201);
    // The app's own dispatcher sends it (due once the clock moves on) and records the refusal.
    (t.clock as ManualClock).advance(1_000);
    let list = await t.call(`${base}/deliveries`, shop.token);
    await vi.waitFor(
      async () => {
        list = await t.call(`${base}/deliveries`, shop.token);
        expect(list.body.data[0]?.last_error).toEqual(expect.any(String));
      },
      { timeout: 15_000, interval: 100 },
    );
    const [delivery] = list.body.data;
    expect(delivery.last_error).toMatch(/^Not sent: the webhook URL's host is not a public address/);
    const one = await t.call(`${base}/deliveries/${delivery.delivery_id}`, shop.token);
    expect(one.body.attempts_log[0].error).toBe(delivery.last_error);
    expect(list.text + one.text).not.toMatch(/127\.0\.0\.1|::1|loopback|refused target/);
    // The operator's view keeps the exact error.
    const stored = await t.app.services.db
      .selectFrom('webhook_deliveries')
      .select('last_error')
      .where('id', '=', delivery.delivery_id)
      .executeTakeFirstOrThrow();
    expect(stored.last_error).toMatch(/^refused target localhost: .*(127\.0\.0\.1|::1)/);
  });

  it("keeps the operator's allowance of a private target for that URL only, and sends a signed test event", async () => {
    const shop = await ownShop('private@shop.example');
    const { db } = t.app.services;
    await setEndpoint(db, t.clock, 'cli:operator', shop.id, { url: receiver.url, allowPrivate: true });
    const base = `/cabinet/v1/merchants/${shop.id}`;
    const rotated = await t.call(`${base}/webhook`, shop.token, {
      method: 'PUT',
      body: { url: receiver.url, rotate_secret: true },
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.allow_private).toBe(true);

    const test = await t.call(`${base}/webhook/test`, shop.token, { method: 'POST' });
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({ url: receiver.url, status_code: 204, error: null });
    const got = receiver.received.find((r) => r.json.id === test.body.event_id);
    expect(got?.json.type).toBe('webhook.test');
    expect(got?.headers['webhook-signature']).toEqual(expect.any(String));

    const other = `http://127.0.0.1:${receiver.port}/elsewhere`;
    const moved = await t.call(`${base}/webhook`, shop.token, { method: 'PUT', body: { url: other } });
    expect([moved.status, moved.body.error.code]).toEqual([422, 'webhook_url_not_allowed']);
  });

  it('answers 409 invalid_state for a test without an endpoint', async () => {
    const shop = await ownShop('none@shop.example');
    const r = await t.call(`/cabinet/v1/merchants/${shop.id}/webhook/test`, shop.token, { method: 'POST' });
    expect([r.status, r.body.error.code]).toEqual([409, 'invalid_state']);
  });
});

describe('deliveries', () => {
  it('link to their invoice and mark the ones still retrying, listed on their own with status=retrying', async () => {
    const shop = await ownShop('deliveries@shop.example');
    await setEndpoint(t.app.services.db, t.clock, 'cli:operator', shop.id, { url: receiver.url, allowPrivate: true });
    refusing = true;
    const inv = await api(t.url, '/v1/invoices', {
      key: shop.key,
      body: { order_id: 'd-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 },
    });
    expect(inv.status).toBe(201);
    const base = `/cabinet/v1/merchants/${shop.id}/deliveries`;
    await vi.waitFor(async () => expect((await t.call(base, shop.token)).body.data[0]?.attempts).toBeGreaterThan(0), {
      timeout: 15_000,
    });
    refusing = false;
    const [d] = (await t.call(base, shop.token)).body.data;
    expect(d).toMatchObject({
      status: 'pending',
      retrying: true,
      type: 'invoice.created',
      subject: { type: 'invoice', id: inv.body.invoice_id },
    });
    expect(
      (await t.call(`${base}?status=retrying`, shop.token)).body.data.map(
        (x: { delivery_id: string }) => x.delivery_id,
      ),
    ).toEqual([d.delivery_id]);
    expect((await t.call(`${base}/${d.delivery_id}`, shop.token)).body).toMatchObject({
      retrying: true,
      subject: { type: 'invoice', id: inv.body.invoice_id },
    });
  });
});

describe('payout settings', () => {
  it('lists the whitelist with each delay and when it becomes usable, and shows the payout limits', async () => {
    const shop = await ownShop('whitelist@shop.example');
    const { db, catalog } = t.app.services;
    const [now, later] = [newAddress(), newAddress()];
    await addToWhitelist(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', address: now, delay: '0' });
    await addToWhitelist(db, t.clock, 'test', catalog, shop.id, { asset: 'USDT_TRON', address: later, delay: '48h' });
    const list = await t.call(`/cabinet/v1/merchants/${shop.id}/whitelist`, shop.token);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ address: later, delay: '2d', delay_seconds: 172_800, usable: false }),
        expect.objectContaining({ address: now, delay: '0s', delay_seconds: 0, usable: true }),
      ]),
    );
    const entry = list.body.data.find((e: { address: string }) => e.address === later);
    expect(Date.parse(entry.usable_from) - Date.parse(entry.created_at)).toBe(172_800_000);

    const merchant = () => t.call(`/cabinet/v1/merchants/${shop.id}`, shop.token).then((r) => r.body.payout_limits);
    // The default: every payout reviewed, no daily limit.
    expect(await merchant()).toEqual({ auto_approve: '0', daily: null });
    await updateMerchant(db, t.clock, 'test', shop.id, { payoutAutoApproveLimit: '250.5', payoutDailyLimit: '1000' });
    expect(await merchant()).toEqual({ auto_approve: '250.5', daily: '1000' });
  });
});
