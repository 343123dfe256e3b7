/**
 * Cabinet accounts and sessions over real HTTP: the one-time setup link, sign-in with the one 401
 * for every wrong case, TOTP, idle expiry on the app's clock, sign-out, the cookie transport with
 * its CSRF token, and the sign-in limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { cabinetUrl } from '../../src/config.js';
import { totpCode } from '../../src/owners/totp.js';
import { createOwner, setOwnerEnabled } from '../../src/owners/service.js';
import { isErrorBody } from '../helpers/http.js';
import { PASSWORD, startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;
let clock: ManualClock;
let merchantId: string;

beforeAll(async () => {
  clock = new ManualClock(new Date());
  t = await startCabinetApp({ clock });
  merchantId = (await t.merchant({ name: 'Shop' })).merchant.merchant_id;
});
afterAll(() => t.close());

const newOwner = (email: string) =>
  createOwner(t.app.services.db, clock, 'test', {
    email,
    merchantIds: [merchantId],
    cabinetUrl: cabinetUrl(t.app.config),
  });

describe('the setup link', () => {
  it('is used once: the owner chooses a password, a second use is 401', async () => {
    const o = await newOwner('setup@shop.example');
    const short = await t.call('/cabinet/v1/account/setup', null, {
      body: { setup_token: o.setup_token, password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body.error.details).toEqual([{ path: 'body.password', message: expect.stringContaining('12') }]);
    const first = await t.call('/cabinet/v1/account/setup', null, {
      body: { setup_token: o.setup_token, password: PASSWORD },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      email: 'setup@shop.example',
      totp: false,
      merchants: [expect.objectContaining({ merchant_id: merchantId, name: 'Shop' })],
    });
    const again = await t.call('/cabinet/v1/account/setup', null, {
      body: { setup_token: o.setup_token, password: 'another password 123' },
    });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('unauthorized');
    // The first password stands.
    expect(await t.signIn('setup@shop.example', PASSWORD)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('expires after 24 h', async () => {
    const o = await newOwner('late@shop.example');
    clock.advance(24 * 3_600_000);
    const r = await t.call('/cabinet/v1/account/setup', null, {
      body: { setup_token: o.setup_token, password: PASSWORD },
    });
    expect(r.status).toBe(401);
    const signIn = await t.call('/cabinet/v1/sessions', null, {
      body: { email: 'late@shop.example', password: PASSWORD },
    });
    expect(signIn.status).toBe(401);
  });
});

describe('sign-in', () => {
  it('gives 201 {token, expires_at} 12 h ahead; every wrong case is the same 401 body', async () => {
    await t.owner('ann@shop.example', [merchantId]);
    const ok = await t.call('/cabinet/v1/sessions', null, { body: { email: 'ANN@shop.example', password: PASSWORD } });
    expect(ok.status).toBe(201);
    expect(Object.keys(ok.body).sort()).toEqual(['expires_at', 'token']);
    expect(Date.parse(ok.body.expires_at) - clock.now().getTime()).toBe(12 * 3_600_000);
    expect(ok.headers.get('x-request-id')).toBeTruthy();

    const bodies: string[] = [];
    const refuse = async (body: Record<string, unknown>) => {
      const r = await t.call('/cabinet/v1/sessions', null, { body });
      expect(r.status).toBe(401);
      expect(isErrorBody(r.body)).toBe(true);
      bodies.push(JSON.stringify(r.body));
    };
    await refuse({ email: 'ann@shop.example', password: 'wrong password!!' });
    await refuse({ email: 'nobody@shop.example', password: PASSWORD });
    await refuse({ email: 'not an email', password: PASSWORD });
    await newOwner('pending@shop.example');
    await refuse({ email: 'pending@shop.example', password: PASSWORD });
    await t.owner('off@shop.example', [merchantId]);
    await setOwnerEnabled(t.app.services.db, clock, 'test', 'off@shop.example', false);
    await refuse({ email: 'off@shop.example', password: PASSWORD });
    expect(new Set(bodies).size).toBe(1);

    // A missing, malformed or unknown token is that same body.
    for (const auth of [undefined, 'Bearer nonsense', `Bearer ${'A'.repeat(43)}`, 'Basic abc']) {
      const r = await t.call('/cabinet/v1/account', null, { headers: auth ? { authorization: auth } : {} });
      expect(r.status).toBe(401);
      expect(JSON.stringify(r.body)).toBe(bodies[0]);
    }
  });

  it('rejects extra or missing fields with validation_failed details', async () => {
    const r = await t.call('/cabinet/v1/sessions', null, { body: { email: 'a@b.example', extra: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'body.password', message: 'is required' },
        { path: 'body.extra', message: 'is not allowed' },
      ]),
    );
  });
});

describe('sessions', () => {
  it('end after 12 h idle, and a request before that moves the end forward', async () => {
    await t.owner('idle@shop.example', [merchantId]);
    const token = await t.signIn('idle@shop.example', PASSWORD);
    clock.advance(11 * 3_600_000);
    expect((await t.call('/cabinet/v1/account', token)).status).toBe(200);
    clock.advance(11 * 3_600_000);
    const current = await t.call('/cabinet/v1/sessions/current', token);
    expect(current.status).toBe(200);
    expect(current.body).toEqual({
      transport: 'bearer',
      expires_at: new Date(clock.now().getTime() + 12 * 3_600_000).toISOString(),
      csrf_token: null,
    });
    clock.advance(12 * 3_600_000);
    const expired = await t.call('/cabinet/v1/account', token);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('unauthorized');
  });

  it('sign-out ends the session; disabling the account ends the others', async () => {
    await t.owner('out@shop.example', [merchantId]);
    const a = await t.signIn('out@shop.example', PASSWORD);
    const b = await t.signIn('out@shop.example', PASSWORD);
    const out = await t.call('/cabinet/v1/sessions/current', a, { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect((await t.call('/cabinet/v1/account', a)).status).toBe(401);
    expect((await t.call('/cabinet/v1/account', b)).status).toBe(200);
    const off = await setOwnerEnabled(t.app.services.db, clock, 'test', 'out@shop.example', false);
    expect(off.sessions_ended).toBe(1);
    expect((await t.call('/cabinet/v1/account', b)).status).toBe(401);
  });
});

describe('the cookie transport', () => {
  it('sets an HttpOnly, Secure, SameSite=Strict cookie; a change without the CSRF token is refused, with it accepted', async () => {
    await t.owner('web@shop.example', [merchantId]);
    const r = await t.call('/cabinet/v1/sessions?transport=cookie', null, {
      body: { email: 'web@shop.example', password: PASSWORD },
    });
    expect(r.status).toBe(201);
    expect(r.body.token).toBeUndefined();
    expect(r.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const setCookie = r.headers.get('set-cookie') as string;
    expect(setCookie).toMatch(
      /^paygate_session=[A-Za-z0-9_-]{43}; Path=\/cabinet\/v1; HttpOnly; (Secure; SameSite=Strict|SameSite=Strict; Secure)$/,
    );
    const cookie = setCookie.split(';')[0] as string;
    const token = cookie.split('=')[1] as string;

    // Reads need only the cookie; the cookie's token is no bearer token.
    expect((await t.call('/cabinet/v1/account', null, { headers: { cookie } })).status).toBe(200);
    expect((await t.call('/cabinet/v1/account', token)).status).toBe(401);
    const current = await t.call('/cabinet/v1/sessions/current', null, { headers: { cookie } });
    expect(current.body.csrf_token).toBe(r.body.csrf_token);

    const path = `/cabinet/v1/merchants/${merchantId}`;
    for (const headers of [{ cookie }, { cookie, 'x-csrf-token': 'A'.repeat(43) }] as Record<string, string>[]) {
      const refused = await t.call(path, null, { method: 'PATCH', body: { enabled: false }, headers });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('csrf_token_invalid');
    }
    const m = await t.call(`/cabinet/v1/merchants/${merchantId}`, null, { headers: { cookie } });
    expect(m.body.enabled).toBe(true);
    const accepted = await t.call(path, null, {
      method: 'PATCH',
      body: { enabled: true },
      headers: { cookie, 'x-csrf-token': r.body.csrf_token },
    });
    expect(accepted.status).toBe(200);

    const out = await t.call('/cabinet/v1/sessions/current', null, { method: 'DELETE', headers: { cookie } });
    expect(out.status).toBe(403);
    const done = await t.call('/cabinet/v1/sessions/current', null, {
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': r.body.csrf_token },
    });
    expect(done.status).toBe(204);
    expect(done.headers.get('set-cookie')).toMatch(/^paygate_session=; Max-Age=0; Path=\/cabinet\/v1/);
    expect((await t.call('/cabinet/v1/account', null, { headers: { cookie } })).status).toBe(401);
  });
});

describe('TOTP', () => {
  it('enrols with a first code; sign-in then needs a code, once', async () => {
    await t.owner('two@shop.example', [merchantId]);
    const token = await t.signIn('two@shop.example', PASSWORD);
    const noEnrolment = await t.call('/cabinet/v1/account/totp/confirm', token, { body: { code: '123456' } });
    expect(noEnrolment.status).toBe(409);
    const e = await t.call('/cabinet/v1/account/totp', token, { body: { current_password: PASSWORD } });
    expect(e.status).toBe(200);
    expect(e.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/paygate:two%40shop\.example\?.*secret=/);
    const wrong = await t.call('/cabinet/v1/account/totp/confirm', token, {
      body: { code: '000000' === totpCode(e.body.secret, clock.now()) ? '111111' : '000000' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].path).toBe('body.code');
    const on = await t.call('/cabinet/v1/account/totp/confirm', token, {
      body: { code: totpCode(e.body.secret, clock.now()) },
    });
    expect(on.status).toBe(200);
    expect(on.body.totp).toBe(true);
    expect((await t.call('/cabinet/v1/account/totp', token, { body: { current_password: PASSWORD } })).status).toBe(
      409,
    );

    const without = await t.call('/cabinet/v1/sessions', null, {
      body: { email: 'two@shop.example', password: PASSWORD },
    });
    expect(without.status).toBe(401);
    // The code just used to confirm is spent; the next step's code works once.
    clock.advance(30_000);
    const code = totpCode(e.body.secret, clock.now());
    expect(await t.signIn('two@shop.example', PASSWORD, code)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const replay = await t.call('/cabinet/v1/sessions', null, {
      body: { email: 'two@shop.example', password: PASSWORD, totp: code },
    });
    expect(replay.status).toBe(401);
    const badPassword = await t.call('/cabinet/v1/sessions', null, {
      body: {
        email: 'two@shop.example',
        password: 'wrong password!!',
        totp: totpCode(e.body.secret, new Date(clock.now().getTime() + 30_000)),
      },
    });
    expect(badPassword.status).toBe(401);
  });
});

describe('sign-in limits', () => {
  it('per account and per client address, each a 429 with Retry-After, counted on the app clock', async () => {
    const limited = await startCabinetApp({
      clock: new ManualClock(new Date()),
      cabinet: { loginPerIp: 5, loginPerAccount: 3 },
    });
    try {
      const m = await limited.merchant();
      await limited.owner('ann@shop.example', [m.merchant.merchant_id]);
      const attempt = (email: string, password = 'wrong password!!') =>
        limited.call('/cabinet/v1/sessions', null, { body: { email, password } });
      for (let i = 0; i < 3; i++) expect((await attempt('ann@shop.example')).status).toBe(401);
      // The account's budget is spent: even the right password waits.
      const fourth = await attempt('ann@shop.example', PASSWORD);
      expect(fourth.status).toBe(429);
      expect(fourth.body.error.code).toBe('rate_limited');
      expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await attempt('bob@shop.example')).status).toBe(401);
      // Five attempts from this address so far: the sixth is refused whatever the account.
      const sixth = await attempt('carol@shop.example');
      expect(sixth.status).toBe(429);
      (limited.clock as ManualClock).advance(60_000);
      expect((await attempt('ann@shop.example', PASSWORD)).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

describe('the listeners', () => {
  it('serves /cabinet/v1 on the cabinet listener only, with a strict Content-Security-Policy', async () => {
    const pub = await t.call('/cabinet/v1/openapi.json', null, {});
    expect(pub.status).toBe(200);
    expect(pub.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(pub.headers.get('cache-control')).toBe('no-store');
    const onPublic = await fetch(`${t.url}/cabinet/v1/openapi.json`);
    expect(onPublic.status).toBe(404);
    expect(((await onPublic.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    // Sign-in takes JSON only: no form of another site can sign a browser in.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const form = await t.call('/cabinet/v1/sessions?transport=cookie', null, {
        rawBody: JSON.stringify({ email: 'ann@shop.example', password: PASSWORD }),
        headers: { 'content-type': type },
      });
      expect(form.status).toBe(415);
      expect(form.body.error.code).toBe('bad_request');
      expect(form.headers.get('set-cookie')).toBeNull();
    }
    const big = await t.call('/cabinet/v1/sessions', null, {
      body: { email: 'a@b.example', password: 'x'.repeat(17_000) },
    });
    expect(big.status).toBe(413);
    const unknown = await t.call('/cabinet/v1/nothing', null, { body: { a: 1 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('route_not_found');
  });
});
