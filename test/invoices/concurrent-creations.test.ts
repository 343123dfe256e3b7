/**
 * Creations arriving at once, as a busy shop or several replicas send them, on the engine under
 * test and always on PostgreSQL too: every one is answered 201 with an address of its own (no
 * 503 from transactions colliding on the deposit index or the merchant's event sequence), also
 * when 16 clients create back to back for a while; the same order id sent at once still makes
 * one invoice; a user's first invoices and permanent address requests sent at once agree on one
 * permanent address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, ON_POSTGRES, type TestPostgres } from '../helpers/database.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from './fixture.js';

const engines: { name: string; url?: () => string }[] = [{ name: 'the engine under test' }];
let pg: TestPostgres | undefined;
if (!ON_POSTGRES) engines.push({ name: 'PostgreSQL', url: () => (pg as TestPostgres).url });

beforeAll(async () => {
  if (!ON_POSTGRES) pg = await createPostgresDatabase();
});
afterAll(async () => {
  await pg?.drop();
});

describe.each(engines)('creations at once on $name', ({ url }) => {
  let t: InvoiceTestApp;
  beforeAll(async () => {
    t = await startInvoiceApp({
      env: {
        ...(url ? { DATABASE_URL: url() } : {}),
        API_RATE_LIMIT_PER_IP: '100000',
        API_RATE_LIMIT_PER_KEY: '100000',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (key: string, path: string, body: Record<string, unknown>) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers 40 different creations sent at once 201, each with an address of its own', async () => {
    const { key } = await t.merchant();
    const answers = await Promise.all(Array.from({ length: 40 }, () => post(key, '/v1/invoices', newInvoice())));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(201));
    const invoices = (await Promise.all(answers.map((a) => a.json()))) as { address: string }[];
    expect(new Set(invoices.map((i) => i.address)).size).toBe(40);
  });

  it('keeps answering 201 to 16 shops creating invoices back to back at the same time', async () => {
    // Sustained, not a burst: every creation takes the deposit index and the merchant's event
    // sequence; transactions that failed on each other and ran again would end in 503 here.
    const shops = await Promise.all(Array.from({ length: 4 }, () => t.merchant()));
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        for (let i = 0; i < 15; i++) {
          const answer = await post(shops[client % 4]!.key, '/v1/invoices', newInvoice());
          statuses.push(answer.status);
          await answer.arrayBuffer();
        }
      }),
    );
    expect(statuses.filter((s) => s !== 201)).toEqual([]);
    expect(statuses).toHaveLength(240);
  });

  it('makes one invoice of 12 identical creations sent at once', async () => {
    const { key } = await t.merchant();
    const body = newInvoice();
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(key, '/v1/invoices', body)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 200)).toBe(true);
    const ids = new Set(
      ((await Promise.all(answers.map((a) => a.json()))) as { invoice_id: string }[]).map((i) => i.invoice_id),
    );
    expect(ids.size).toBe(1);
  });

  it('gives a user one permanent address when their first invoices and address requests come at once', async () => {
    const { key } = await t.merchant({ addressMode: 'per_user' });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => post(key, '/v1/invoices', newInvoice({ external_user_id: 'user-7' }))),
      ...Array.from({ length: 6 }, () => post(key, '/v1/addresses', { external_user_id: 'user-7', network: 'tron' })),
    ]);
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as { address: string }[];
    expect(answers.map((a) => a.status).filter((s) => s !== 200 && s !== 201)).toEqual([]);
    expect(new Set(bodies.map((b) => b.address)).size).toBe(1);
  });
});
