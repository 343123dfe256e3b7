/**
 * Deposit events as a merchant's receiver gets them over real HTTP on loopback, checked against
 * what the service itself documents (the OpenAPI `webhooks` section); the local-use NAT64 prefix.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { findDepositAddresses } from '../../src/addresses/store.js';
import { ManualClock } from '../../src/clock.js';
import { writeTx } from '../../src/db/database.js';
import { recordTransfer } from '../../src/deposits/service.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { blockedReason, resolveTarget } from '../../src/webhooks/ssrf.js';
import { advanceDeposits } from '../../src/watcher/deposit-progress.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { api } from '../helpers/http.js';
import { startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';
import { receiverPool, silent } from './fixture.js';

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
};

/** The JSON Schema subset the OpenAPI document uses (objects, strings, integers, booleans, null, anyOf, enum, const). */
function problems(schema: Schema, value: unknown, at = 'data'): string[] {
  if (schema.anyOf)
    return schema.anyOf.some((s) => problems(s, value, at).length === 0) ? [] : [`${at} matches no alternative`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at} is not one of ${JSON.stringify(schema.enum)}`];
  if ('const' in schema && schema.const !== value) return [`${at} is not ${JSON.stringify(schema.const)}`];
  switch (schema.type) {
    case 'null':
      return value === null ? [] : [`${at} is not null`];
    case 'string':
      return typeof value === 'string' ? [] : [`${at} is not a string`];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${at} is not an integer`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at} is not a boolean`];
    case 'object': {
      if (typeof value !== 'object' || value === null) return [`${at} is not an object`];
      const v = value as Record<string, unknown>;
      const out = (schema.required ?? []).filter((k) => !(k in v)).map((k) => `${at}.${k} is required`);
      for (const [k, x] of Object.entries(v)) {
        const p = schema.properties?.[k];
        if (p) out.push(...problems(p, x, `${at}.${k}`));
        else if (schema.additionalProperties === false) out.push(`${at}.${k} is not allowed`);
      }
      return out;
    }
    default:
      return [];
  }
}

const receivers = receiverPool();
let t: InvoiceTestApp;
let lease: WorkerLease;
beforeAll(async () => {
  // Near the real time: the standardwebhooks verifier checks webhook-timestamp against it.
  t = await startInvoiceApp({ clock: new ManualClock(new Date()) });
  lease = new WorkerLease(t.app.services.db, t.clock, { ttlMs: 3_650 * 86_400_000 });
  await lease.acquireOrRenew();
});
afterAll(async () => {
  await receivers.closeAll();
  await t.close();
});

describe('deposit events', () => {
  it('deposit.seen and deposit.confirmed bodies match the OpenAPI webhooks schema the service publishes', async () => {
    const { db } = t.app.services;
    const r = await receivers.start();
    const m = await t.merchant({ addressMode: 'per_user' });
    const merchantId = m.merchant.merchant_id;
    const { secret } = await setEndpoint(db, t.clock, 'test', merchantId, { url: r.url, allowPrivate: true });
    const address = (
      await api(t.url, '/v1/addresses', { key: m.key, body: { external_user_id: 'user-77', network: 'tron' } })
    ).body.address as string;

    // A deposit to the user's permanent address with no open invoice: standalone, deposit.seen;
    // 20 blocks later it has its 19 confirmations: deposit.confirmed.
    const block = { number: 500, hash: randomBytes(32).toString('hex'), time: t.clock.now().toISOString() };
    const derivationIndex = (await findDepositAddresses(db, [address]))[0]!.derivation_index;
    const transfer = {
      address,
      derivationIndex,
      merchantId,
      externalUserId: 'user-77',
      asset: 'USDT_TRON',
      decimals: 6,
      amount: 40_000_000n,
      txHash: randomBytes(32).toString('hex'),
      logIndex: 0,
      from: null,
      block,
    };
    const progress = (head: number) => ({
      clock: t.clock,
      defaultConfirmations: 19,
      horizon: block.time,
      head,
      solid: 0,
      scannedTo: head,
    });
    await writeTx(db, async (trx) => {
      await recordTransfer(trx, { clock: t.clock, head: 500 }, transfer);
      await advanceDeposits(trx, progress(500), new Set());
    });
    await writeTx(db, (trx) => advanceDeposits(trx, progress(520), new Set()));

    const dispatcher = new WebhookDispatcher(db, t.clock, lease, silent, { random: () => 0.5 });
    while ((await dispatcher.dispatchDue()) > 0);
    expect(r.received.map((x) => x.json.type)).toEqual(['deposit.seen', 'deposit.confirmed']);
    // Seen in the head block: 1 confirmation (its own block), as the stored deposit shows; 21 at 520.
    expect(r.received.map((x) => x.json.data.confirmations)).toEqual([1, 21]);

    const doc = (await api(t.url, '/v1/openapi.json')).body;
    for (const got of r.received) {
      new Webhook(secret as string).verify(got.body, got.headers as Record<string, string>);
      const schema = doc.webhooks[got.json.type].post.requestBody.content['application/json'].schema as Schema;
      expect(problems(schema, got.json, 'body'), got.json.type).toEqual([]);
    }
  });
});

describe('SSRF guard: local-use NAT64', () => {
  // RFC 8215: 64:ff9b:1::/48 is the local-use NAT64 prefix; a NAT64 gateway with it translates to
  // the embedded IPv4 address just like the well-known 64:ff9b::/96.
  it.each(['64:ff9b:1::7f00:1', '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:ffff::a00:1'])(
    'refuses the local-use NAT64 address %s',
    (ip) => {
      expect(blockedReason(ip)).not.toBeNull();
    },
  );

  it('refuses a host name whose DNS answer is a local-use NAT64 address of the metadata service', async () => {
    const nat64 = async () => [{ address: '64:ff9b:1::a9fe:a9fe', family: 6 }];
    await expect(resolveTarget('hooks.example', false, nat64 as never)).rejects.toThrow(/refused target/);
  });
});
