/**
 * Sign-in limits across replicas: two apps on one database with the same REDIS_URL (the real Redis
 * on 127.0.0.1:6379, a key prefix of this test's own) share the per-account and per-address
 * counts of sign-in attempts, so an attacker who spreads guesses over replicas gets no more than
 * on one. Without REDIS_URL each process counts alone (the documented fallback).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api } from '../helpers/http.js';
import { TEST_PASSPHRASE } from '../invoices/fixture.js';
import { PASSWORD, startCabinetApp, TOTP_KEY } from './helpers.js';

const open: TestApp[] = [];
afterEach(async () => {
  for (const t of open.splice(0).reverse()) await t.close();
});

/** Two replicas on one database, sign-ins limited to `perAccount` and `perIp` a minute. */
async function replicas(env: Record<string, string>, perAccount: number, perIp: number): Promise<[TestApp, TestApp]> {
  const cabinet = { loginPerAccount: perAccount, loginPerIp: perIp };
  const a = await startCabinetApp({ cabinet, workers: false, env });
  open.push(a);
  const m = await a.merchant();
  await a.owner('ann@shop.example', [m.merchant.merchant_id]);
  const b = await startTestApp({
    cabinet,
    workers: false,
    env: {
      ...env,
      DATABASE_URL: a.app.config.databaseUrl,
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
      CABINET_TOTP_KEY: TOTP_KEY,
    },
  });
  open.push(b);
  return [a, b];
}

const attempt = (t: TestApp, email: string, password = 'wrong password!!') =>
  api(t.app.cabinetUrl as string, '/cabinet/v1/sessions', { body: { email, password } });

const prefix = () => `paygate-test:${randomBytes(6).toString('hex')}:`;

describe('sign-in limits with REDIS_URL', () => {
  it('count one account over both replicas: the fourth attempt is refused wherever it lands', async () => {
    const [a, b] = await replicas({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: prefix() }, 3, 1000);
    for (const t of [a, b, a]) expect((await attempt(t, 'ann@shop.example')).status).toBe(401);
    for (const t of [b, a]) {
      const r = await attempt(t, 'ann@shop.example', PASSWORD);
      expect(r.status, r.text).toBe(429);
      expect(r.body.error.code).toBe('rate_limited');
      expect(r.body.error.message).toContain('for this account');
      const retry = Number(r.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
    }
    // Another account is not held back by ann's count.
    expect((await attempt(b, 'bob@shop.example')).status).toBe(401);
  });

  it('count one client address over both replicas, whatever the accounts', async () => {
    const [a, b] = await replicas({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: prefix() }, 1000, 4);
    const emails = ['a@shop.example', 'b@shop.example', 'c@shop.example', 'd@shop.example'];
    for (const [i, email] of emails.entries()) expect((await attempt(i % 2 ? b : a, email)).status).toBe(401);
    const r = await attempt(b, 'e@shop.example');
    expect(r.status).toBe(429);
    expect(r.body.error.message).toContain('from this address');
  });
});

describe('sign-in limits without REDIS_URL', () => {
  it('are counted by each process alone', async () => {
    const [a, b] = await replicas({}, 3, 1000);
    for (const t of [a, a, a]) expect((await attempt(t, 'ann@shop.example')).status).toBe(401);
    expect((await attempt(a, 'ann@shop.example')).status).toBe(429);
    // The other replica has counted nothing yet.
    expect((await attempt(b, 'ann@shop.example', PASSWORD)).status).toBe(201);
  });
});
