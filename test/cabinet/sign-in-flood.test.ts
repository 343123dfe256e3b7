/**
 * A flood of sign-ins cannot starve /v1: every password check, an unknown email's decoy included,
 * runs in the password share of the API keys' bounded hashing. While sign-ins pour in (argon2id at
 * the production cost), the share fills and the surplus is answered 503 service_unavailable with
 * Retry-After, and new API keys (each needing its own argon2id check) all go through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type ApiResponse } from '../helpers/http.js';
import { PASSWORD, startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;

beforeAll(async () => {
  t = await startCabinetApp();
});
afterAll(() => t.close());

describe('a flood of sign-ins', () => {
  it('gets 503 with Retry-After past its share, while concurrent first requests of new API keys all succeed', async () => {
    const shops = await Promise.all(Array.from({ length: 8 }, (_, i) => t.merchant({ name: `Shop ${i}` })));
    const [first] = shops as [(typeof shops)[number]];
    await t.owner('owner@shop.example', [first.merchant.merchant_id]);
    const hashesBefore = t.app.services.verifier.hashCount;

    // 80 sign-ins at once: wrong passwords and unknown emails (decoys) alike.
    const signIns = Array.from({ length: 80 }, (_, i) =>
      t.call('/cabinet/v1/sessions', null, {
        body: { email: i % 2 ? 'owner@shop.example' : `nobody-${i}@shop.example`, password: `wrong password ${i}` },
      }),
    );
    // Meanwhile each shop's new key makes its first request (an argon2id check of its own).
    const keyed = shops.map((s, i) =>
      api(t.url, '/v1/invoices', {
        key: s.key,
        body: { order_id: `o-${i}`, asset: 'USDT_TRON', amount: '10', expires_in: 600 },
      }),
    );
    const [signed, v1] = await Promise.all([Promise.all(signIns), Promise.all(keyed)]);

    for (const r of v1) expect(r.status, r.text).toBe(201);
    expect(t.app.services.verifier.hashCount - hashesBefore).toBe(shops.length);

    const busy = signed.filter((r) => r.status === 503);
    const refused = signed.filter((r) => r.status === 401);
    expect(busy.length + refused.length).toBe(signed.length);
    expect(busy.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of busy as ApiResponse[]) {
      expect(r.body.error.code).toBe('service_unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(t.app.services.verifier.refused.passwords_busy).toBe(busy.length);
    // Every answered sign-in had its password checked (decoys too): none was refused unchecked.
    expect(t.app.services.verifier.passwordHashCount).toBeGreaterThanOrEqual(refused.length);

    // The flood over, the owner signs in.
    expect(await t.signIn('owner@shop.example', PASSWORD)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
