/**
 * The second factor can be neither guessed nor read: two replicas on one database (the SQLite
 * file, or PostgreSQL with PAYGATE_TEST_DATABASE=postgres) count wrong codes together and lock the
 * second factor after ten in a row, for 15 minutes, on both; the owner is told at the next
 * sign-in; each failure is in the audit log. Recovery codes from the enrolment sign in once each.
 * The secrets are sealed: a copy of the database on a server without the key signs no one in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { cabinetUrl } from '../../src/config.js';
import { resetOwner } from '../../src/owners/service.js';
import { totpCode } from '../../src/owners/totp.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api, type ApiRequest } from '../helpers/http.js';
import { TEST_PASSPHRASE } from '../invoices/fixture.js';
import { PASSWORD, startCabinetApp, TOTP_KEY, type CabinetTestApp } from './helpers.js';

let clock: ManualClock;
let a: CabinetTestApp;
let b: TestApp;
let merchantId: string;
const others: TestApp[] = [];

/** Another `serve` on a's database (no background work), with its own environment. */
async function replica(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startTestApp({
    clock,
    workers: false,
    cabinet: { loginPerIp: 1000, loginPerAccount: 1000 },
    env: {
      DATABASE_URL: a.app.config.databaseUrl,
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
      CABINET_TOTP_KEY: TOTP_KEY,
      ...env,
    },
  });
  others.push(t);
  return t;
}

beforeAll(async () => {
  clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  a = await startCabinetApp({ clock });
  merchantId = (await a.merchant({ name: 'Shop' })).merchant.merchant_id;
  b = await replica();
});
afterAll(async () => {
  for (const t of others) await t.close();
  await a.close();
});

const on =
  (t: TestApp) =>
  (path: string, req: ApiRequest = {}) =>
    api(t.app.cabinetUrl as string, path, req);
const signIn = (t: TestApp, body: Record<string, unknown>) => on(t)('/cabinet/v1/sessions', { body });

/** An owner with the second factor on: its secret and recovery codes. */
async function enrolled(email: string): Promise<{ secret: string; codes: string[] }> {
  await a.owner(email, [merchantId]);
  const token = await a.signIn(email, PASSWORD);
  const e = await a.call('/cabinet/v1/account/totp', token, { body: { current_password: PASSWORD } });
  expect(e.status).toBe(200);
  const confirmed = await a.call('/cabinet/v1/account/totp/confirm', token, {
    body: { code: totpCode(e.body.secret, clock.now()) },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect(confirmed.body.totp).toBe(true);
  clock.advance(30_000);
  return { secret: e.body.secret, codes: confirmed.body.recovery_codes };
}

/** A six-digit code no window around now accepts. */
function wrongCode(secret: string): string {
  const near = [-30_000, 0, 30_000].map((d) => totpCode(secret, new Date(clock.now().getTime() + d)));
  return ['000000', '111111', '222222', '333333'].find((c) => !near.includes(c)) as string;
}

async function auditOf(email: string, action: string) {
  const owner = await a.app.services.db.selectFrom('owners').select('id').where('email', '=', email).executeTakeFirst();
  const rows = await a.app.services.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', action)
    .where('subject_id', '=', owner?.id as string)
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.details as string));
}

describe('wrong second-factor codes', () => {
  it('are counted across replicas: ten in a row lock the second factor on both for 15 minutes', async () => {
    const email = 'guess@shop.example';
    const { secret } = await enrolled(email);
    // Ten wrong codes with the right password, half on each replica.
    for (let i = 0; i < 10; i++) {
      const r = await signIn(i % 2 ? b : a, { email, password: PASSWORD, totp: wrongCode(secret) });
      expect(r.status, r.text).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
    // The right code is not even checked now, on either replica.
    for (const t of [b, a]) {
      const r = await signIn(t, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) });
      expect(r.status, r.text).toBe(429);
      expect(r.body.error.code).toBe('second_factor_locked');
      expect(Number(r.headers.get('retry-after'))).toBe(15 * 60);
    }
    // A wrong password is the one 401 still: the lock tells nothing to whoever lacks the password.
    const wrongPassword = await signIn(b, { email, password: 'not the password', totp: totpCode(secret, clock.now()) });
    expect(wrongPassword.status).toBe(401);
    const failures = await auditOf(email, 'owner.second_factor_failure');
    expect(failures.map((f) => f.failures_in_a_row)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const lockedUntil = new Date(clock.now().getTime() + 15 * 60_000).toISOString();
    expect(failures[9]).toEqual({ kind: 'totp', failures_in_a_row: 10, locked_until: lockedUntil });
    expect(failures[8].locked_until).toBeNull();

    // 15 minutes later the right code signs in, and the owner is told of the wrong ones.
    clock.advance(15 * 60_000);
    const back = await signIn(b, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) });
    expect(back.status, back.text).toBe(201);
    expect(back.body.second_factor_failures).toEqual({ attempts: 10, locked_until: lockedUntil });
    // Told once: the next sign-in has nothing to report.
    clock.advance(30_000);
    const next = await signIn(a, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) });
    expect(next.status).toBe(201);
    expect(Object.keys(next.body).sort()).toEqual(['expires_at', 'token']);
  });

  it('a right code before the tenth resets the count', async () => {
    const email = 'typo@shop.example';
    const { secret } = await enrolled(email);
    for (let i = 0; i < 9; i++)
      expect((await signIn(i % 2 ? a : b, { email, password: PASSWORD, totp: wrongCode(secret) })).status).toBe(401);
    const ok = await signIn(a, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) });
    expect(ok.status).toBe(201);
    expect(ok.body.second_factor_failures).toEqual({ attempts: 9, locked_until: null });
    clock.advance(30_000);
    for (let i = 0; i < 9; i++)
      expect((await signIn(b, { email, password: PASSWORD, totp: wrongCode(secret) })).status).toBe(401);
    expect((await signIn(b, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) })).status).toBe(201);
  });
});

describe('recovery codes', () => {
  it('ten at enrolment, each signs in once instead of a TOTP code, on any replica', async () => {
    const email = 'lost-phone@shop.example';
    const { codes } = await enrolled(email);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    // Stored as digests only.
    const stored = await a.app.services.db.selectFrom('owner_recovery_codes').select('code_hash').execute();
    for (const c of codes) expect(JSON.stringify(stored)).not.toContain(c);

    // Typed back in capitals with spaces: the same code.
    const [one, two, three] = codes as [string, string, string];
    const typed = one.toUpperCase().replace(/-/g, ' ');
    const first = await signIn(b, { email, password: PASSWORD, recovery_code: typed });
    expect(first.status, first.text).toBe(201);
    expect(first.body.recovery_codes_left).toBe(9);
    const again = await signIn(a, { email, password: PASSWORD, recovery_code: one });
    expect(again.status).toBe(401);
    // A used or unknown code counts as a wrong code; another unused one still works.
    const second = await signIn(a, { email, password: PASSWORD, recovery_code: two });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({
      recovery_codes_left: 8,
      second_factor_failures: { attempts: 1, locked_until: null },
    });
    expect(await auditOf(email, 'owner.recovery_code_use')).toEqual([
      { recovery_codes_left: 9 },
      { recovery_codes_left: 8 },
    ]);
    // A wrong password with a good recovery code spends nothing.
    expect((await signIn(a, { email, password: 'not the password', recovery_code: three })).status).toBe(401);
    expect((await signIn(a, { email, password: PASSWORD, recovery_code: three })).status).toBe(201);

    // The operator's reset clears the second factor with its codes: none of them signs in again.
    const reset = await resetOwner(a.app.services.db, clock, 'test', email, cabinetUrl(a.app.config));
    const setup = await a.call('/cabinet/v1/account/setup', null, {
      body: { setup_token: reset.setup_token, password: PASSWORD },
    });
    expect(setup.status).toBe(200);
    expect(setup.body.totp).toBe(false);
    const owner = await a.app.services.db
      .selectFrom('owners')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    const left = await a.app.services.db
      .selectFrom('owner_recovery_codes')
      .select('code_hash')
      .where('owner_id', '=', owner.id)
      .execute();
    expect(left).toEqual([]);
  });
});

describe('TOTP secrets at rest', () => {
  it('are sealed: the row shows no secret, and a server without the key signs no one in', async () => {
    const email = 'sealed@shop.example';
    const { secret } = await enrolled(email);
    const row = await a.app.services.db
      .selectFrom('owners')
      .select(['totp_secret', 'totp_pending_secret'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret).toMatch(/^s1\./);
    expect(row.totp_secret).not.toContain(secret);
    expect(row.totp_pending_secret).toBeNull();

    // A copy of the database (here: the database itself) on servers with another key or none.
    for (const env of [{ CABINET_TOTP_KEY: 'another key, long enough to be accepted' }, { CABINET_TOTP_KEY: '' }]) {
      const stranger = await replica(env);
      const r = await signIn(stranger, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) });
      expect(r.status, r.text).toBe(503);
      expect(r.body.error.code).toBe('service_unavailable');
    }
    // The key's own servers go on signing in.
    expect((await signIn(b, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) })).status).toBe(201);
  });

  it('without the key, no enrolment starts (nothing would be stored readable)', async () => {
    const keyless = await replica({ CABINET_TOTP_KEY: '' });
    await a.owner('keyless@shop.example', [merchantId]);
    const token = (await signIn(keyless, { email: 'keyless@shop.example', password: PASSWORD })).body.token;
    const r = await on(keyless)('/cabinet/v1/account/totp', {
      body: { current_password: PASSWORD },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toContain('CABINET_TOTP_KEY');
  });

  it('a secret stored readable before sealing is sealed when a server with the key starts, and still works', async () => {
    const email = 'legacy@shop.example';
    const { secret } = await enrolled(email);
    // As a database from before sealing holds it.
    await a.app.services.db.updateTable('owners').set({ totp_secret: secret }).where('email', '=', email).execute();
    await replica();
    const row = await a.app.services.db
      .selectFrom('owners')
      .select('totp_secret')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret).toMatch(/^s1\./);
    expect((await auditOf(email, 'owner.totp_secret_seal')).length).toBe(1);
    expect((await signIn(a, { email, password: PASSWORD, totp: totpCode(secret, clock.now()) })).status).toBe(201);
  });
});

describe('changing the second factor', () => {
  it('needs the current password to turn it on, make new recovery codes or turn it off; a refusal changes nothing', async () => {
    const state = async (email: string) =>
      a.app.services.db
        .selectFrom('owners')
        .select(['totp_enabled', 'totp_secret', 'totp_pending_secret'])
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
    const wrong = { current_password: 'not the password' };
    const refused = async (email: string, token: string, path: string, body: Record<string, unknown>) => {
      const before = await state(email);
      const r = await a.call(path, token, { body });
      expect(r.status, r.text).toBe(401);
      expect(r.body.error.code).toBe('current_password_incorrect');
      expect(await state(email)).toEqual(before);
    };
    // A session alone (a leaked token) cannot turn it on with its own authenticator.
    const leaked = 'leaked@shop.example';
    await a.owner(leaked, [merchantId]);
    const token = await a.signIn(leaked, PASSWORD);
    expect((await a.call('/cabinet/v1/account/totp', token, { method: 'POST' })).status).toBe(400);
    await refused(leaked, token, '/cabinet/v1/account/totp', wrong);

    const email = 'changes@shop.example';
    const { secret, codes } = await enrolled(email);
    const session = await a.signIn(email, PASSWORD, totpCode(secret, clock.now()));
    clock.advance(30_000);
    await refused(email, session, '/cabinet/v1/account/recovery-codes', wrong);
    const renewed = await a.call('/cabinet/v1/account/recovery-codes', session, {
      body: { current_password: PASSWORD },
    });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body.recovery_codes).toHaveLength(10);
    expect((await signIn(a, { email, password: PASSWORD, recovery_code: codes[0] })).status).toBe(401);

    const elsewhere = await a.signIn(email, PASSWORD, totpCode(secret, clock.now()));
    clock.advance(30_000);
    await refused(email, session, '/cabinet/v1/account/totp/disable', {
      ...wrong,
      code: totpCode(secret, clock.now()),
    });
    const badCode = await a.call('/cabinet/v1/account/totp/disable', session, {
      body: { current_password: PASSWORD, code: wrongCode(secret) },
    });
    expect(badCode.status, badCode.text).toBe(400);
    expect(badCode.body.error.details[0].path).toBe('body.code');
    const off = await a.call('/cabinet/v1/account/totp/disable', session, {
      body: { current_password: PASSWORD, code: renewed.body.recovery_codes[0] },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.body.totp).toBe(false);
    // The account's other sessions end; sign-in needs the password only.
    expect((await a.call('/cabinet/v1/account', elsewhere)).status).toBe(401);
    expect((await signIn(a, { email, password: PASSWORD })).status).toBe(201);
    expect(await auditOf(email, 'owner.totp_disable')).toHaveLength(1);
  });
});
