/**
 * The operator's webhook CLI as real processes (bin/dev.js) on the SQLite file a dispatcher uses:
 * set the endpoint (secret shown once), rotate, list and show deliveries, resend, send a test event.
 * Also the OpenAPI `webhooks` section of the running API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/webhooks/event-types.js';
import { runCli } from '../helpers/cli.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/http.js';
import { openWebhookDb, startReceiver, type Receiver, type WebhookDb } from './fixture.js';

let w: WebhookDb;
let r: Receiver;
let env: Record<string, string>;
const cli = (...args: string[]) => runCli([...args, '--json'], env);

beforeAll(async () => {
  w = await openWebhookDb();
  r = await startReceiver(() => ({ status: 200, body: '{"received":true}' }));
  env = { DATABASE_URL: w.database.url, TRON_NETWORK: 'devnet' };
});
afterAll(async () => {
  await r.close();
  await w.close();
});

describe('webhook CLI', () => {
  it('merchant webhook: the secret is printed once, rotation prints a new one, checks refuse bad URLs', async () => {
    const m = await w.merchant();
    const set = await cli('merchant', 'webhook', m, '--url', r.url, '--allow-private');
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ merchant_id: m, url: r.url, allow_private: true, previous_secret_until: null });
    expect(set.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(set.json.secret.slice(6), 'base64')).toHaveLength(32);

    const again = await cli('merchant', 'webhook', m, '--url', `${r.url}?v=2`, '--allow-private');
    expect(again.json).toMatchObject({ url: `${r.url}?v=2`, secret: null });
    const human = await runCli(['merchant', 'webhook', m, '--url', r.url, '--allow-private', '--rotate-secret'], env);
    expect(human.code, human.stderr).toBe(0);
    const rotated = /whsec_\S+/.exec(human.stdout)?.[0];
    expect(rotated).toBeDefined();
    expect(rotated).not.toBe(set.json.secret);
    expect(human.stdout).toMatch(/previous_secret_until\s+\d{4}-/);

    // The secret is in no audit record.
    const audit = await w.db
      .selectFrom('audit_log')
      .select('details')
      .where('merchant_id', '=', m)
      .where('action', '=', 'merchant.webhook')
      .execute();
    expect(audit.length).toBe(3);
    expect(JSON.stringify(audit)).not.toContain(set.json.secret.slice(6));
    expect(JSON.stringify(audit)).not.toContain((rotated as string).slice(6));

    const refused = await Promise.all([
      cli('merchant', 'webhook', m, '--url', r.url), // http without --allow-private
      cli('merchant', 'webhook', m, '--url', 'https://169.254.169.254/latest'),
      cli('merchant', 'webhook', 'nope', '--url', 'https://hooks.example/x'),
    ]);
    expect(refused.map((x) => x.json.error.code)).toEqual([
      'invalid_argument',
      'invalid_argument',
      'merchant_not_found',
    ]);
  }, 180_000);

  it('webhook test sends a signed webhook.test now and prints the answer', async () => {
    const m = await w.merchant();
    const secret = (await w.endpoint(m, r.url)).secret as string;
    const before = r.received.length;
    const none = await w.merchant();
    const [res, missing] = await Promise.all([cli('webhook', 'test', m), cli('webhook', 'test', none)]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({
      url: r.url,
      status_code: 200,
      error: null,
      response_excerpt: '{"received":true}',
    });
    const got = r.received[before]!;
    expect(got.json).toMatchObject({ id: res.json.event_id, type: 'webhook.test', data: { merchant_id: m } });
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.test',
    });
    expect(missing.json.error.code).toBe('invalid_state');
  }, 180_000);

  it('webhook deliveries, show and resend', async () => {
    const m = await w.merchant();
    await w.endpoint(m, r.url);
    const ok = await w.emit(m, 'invoice.created');
    await w.dispatcher().dispatchDue();
    const answer = r.answer;
    r.answer = () => ({ status: 422, body: 'unknown invoice' });
    const bad = await w.emit(m, 'invoice.expired');
    await w.dispatcher().dispatchDue();
    r.answer = answer;

    const [delivered, failedRow] = await Promise.all(
      [ok, bad].map((e) =>
        w.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', e).executeTakeFirstOrThrow(),
      ),
    );
    const id = failedRow!.id;
    const [list, failed, table, shown, unknown, notFailed, malformed] = await Promise.all([
      cli('webhook', 'deliveries', '--merchant', m),
      cli('webhook', 'deliveries', '--status', 'failed', '--merchant', m),
      runCli(['webhook', 'deliveries', '--merchant', m], env),
      cli('webhook', 'show', id),
      cli('webhook', 'resend', 'dlv_nope'),
      cli('webhook', 'resend', delivered!.id),
      cli('webhook', 'show', 'x'),
    ]);
    expect(list.json.data.map((d: { event_id: string; status: string }) => [d.event_id, d.status])).toEqual([
      [bad, 'failed'],
      [ok, 'delivered'],
    ]);
    expect(failed.json.data.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([id]);
    expect(table.stdout).toMatch(/delivery_id\s+merchant_id\s+type\s+status/);
    expect(table.stdout).toContain('invoice.expired');
    expect(shown.json.attempts_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 422, outcome: 'failed', response_excerpt: 'unknown invoice' }),
    ]);
    expect(typeof shown.json.attempts_log[0].duration_ms).toBe('number');
    expect([unknown, notFailed, malformed].map((x) => x.json.error.code)).toEqual([
      'delivery_not_found',
      'delivery_not_failed',
      'delivery_not_found',
    ]);

    const resent = await cli('webhook', 'resend', id);
    expect(resent.json).toMatchObject({ delivery_id: id, status: 'pending' });
    w.clock.set(new Date()); // the CLI wrote the resend with the system clock
    await w.dispatcher().dispatchDue();
    expect((await cli('webhook', 'show', id)).json).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(r.accepted().at(-1)!.headers['webhook-id']).toBe(bad);
  }, 180_000);

  it('paygate --help lists the webhook topic', async () => {
    const help = await runCli(['--help'], env);
    expect(help.stdout).toMatch(/webhook\s+Webhook deliveries/);
  }, 60_000);
});

describe('OpenAPI webhooks section', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ workers: false });
  });
  afterAll(() => t.close());

  it('documents every event type with its body and the three signature headers', async () => {
    const doc = (await api(t.url, '/v1/openapi.json')).body;
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const op = doc.webhooks[type].post;
      expect(op.parameters.map((p: { name: string }) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      const schema = op.requestBody.content['application/json'].schema;
      expect(schema.required).toEqual(['id', 'type', 'created_at', 'data']);
      expect(schema.properties.type.const).toBe(type);
      const title = type.startsWith('invoice.') ? 'Invoice' : type.startsWith('payout.') ? 'Payout' : 'Deposit';
      expect(schema.properties.data.title).toBe(title);
    }
    expect(
      doc.webhooks['deposit.confirmed'].post.requestBody.content['application/json'].schema.properties.data.required,
    ).toEqual(expect.arrayContaining(['tx_hash', 'amount', 'address', 'asset', 'external_user_id']));
  });
});
