/**
 * How long a cabinet session lives, over real HTTP on the app's clock: 7 days after sign-in at
 * most, whatever the activity; and turning the second factor on ends the account's other
 * sessions while the one that turned it on stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { totpCode } from '../../src/owners/totp.js';
import { PASSWORD, startCabinetApp, type CabinetTestApp } from './helpers.js';

const HOUR = 3_600_000;
let t: CabinetTestApp;
let clock: ManualClock;
let merchantId: string;

beforeAll(async () => {
  clock = new ManualClock(new Date('2026-05-01T10:00:00.000Z'));
  t = await startCabinetApp({ clock });
  merchantId = (await t.merchant({ name: 'Shop' })).merchant.merchant_id;
});
afterAll(() => t.close());

describe('session terms', () => {
  it('end 7 days after sign-in even when used every few hours', async () => {
    await t.owner('week@shop.example', [merchantId]);
    const signedIn = clock.now().getTime();
    const token = await t.signIn('week@shop.example', PASSWORD);
    // A request every 11 h keeps it from idling out, up to 6 days 21 hours.
    for (let i = 0; i < 15; i++) {
      clock.advance(11 * HOUR);
      expect((await t.call('/cabinet/v1/account', token)).status).toBe(200);
    }
    const current = await t.call('/cabinet/v1/sessions/current', token);
    expect(current.body.expires_at).toBe(new Date(signedIn + 7 * 24 * HOUR).toISOString());
    clock.advance(3 * HOUR);
    const ended = await t.call('/cabinet/v1/account', token);
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe('unauthorized');
    // Signing in again starts a new week.
    expect((await t.call('/cabinet/v1/account', await t.signIn('week@shop.example', PASSWORD))).status).toBe(200);
  });

  it("turning the second factor on ends the account's other sessions; the current one stays", async () => {
    const { email } = await t.owner('factor@shop.example', [merchantId]);
    const here = await t.signIn(email, PASSWORD);
    const elsewhere = await t.signIn(email, PASSWORD);
    const other = await t.owner('bystander@shop.example', [merchantId]);
    const bystander = await t.signIn(other.email, PASSWORD);

    const e = await t.call('/cabinet/v1/account/totp', here, { body: { current_password: PASSWORD } });
    const on = await t.call('/cabinet/v1/account/totp/confirm', here, {
      body: { code: totpCode(e.body.secret, clock.now()) },
    });
    expect(on.status).toBe(200);
    expect((await t.call('/cabinet/v1/account', here)).status).toBe(200);
    expect((await t.call('/cabinet/v1/account', elsewhere)).status).toBe(401);
    expect((await t.call('/cabinet/v1/account', bystander)).status).toBe(200);
    const audit = await t.app.services.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'owner.totp_enable')
      .where('actor', '=', `owner:${email}`)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details)).toEqual({ other_sessions_ended: 1, recovery_codes: 10 });
  });
});
