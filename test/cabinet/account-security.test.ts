/**
 * The owner's own security over real HTTP and real argon2: changing the password ends every other
 * session (a wrong current password changes nothing and is audited), and the account's sessions
 * are listed with their times and address and can be ended one by one, never another account's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/store.js';
import { startCabinetApp, PASSWORD, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;
const NEW_PASSWORD = 'a brand new passphrase';

beforeAll(async () => {
  t = await startCabinetApp({ workers: false });
});
afterAll(() => t?.close());

async function account(email: string) {
  const { merchant } = await t.merchant({ name: 'Shop', siteUrl: 'https://shop.example' });
  const owner = await t.owner(email, [merchant.merchant_id]);
  return owner;
}

const ownerId = (email: string) =>
  t.app.services.db.selectFrom('owners').select('id').where('email', '=', email).executeTakeFirstOrThrow();

describe('changing the password', () => {
  it('answers 204, keeps this session, ends the others, and the new password signs in', async () => {
    const owner = await account('pw@shop.example');
    const [mine, other] = [await t.signIn(owner.email, PASSWORD), await t.signIn(owner.email, PASSWORD)];
    const r = await t.call('/cabinet/v1/account/password', mine, {
      body: { current_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(r.status, r.text).toBe(204);
    expect((await t.call('/cabinet/v1/account', mine)).status).toBe(200);
    expect((await t.call('/cabinet/v1/account', other)).status).toBe(401);
    expect(
      (await t.call('/cabinet/v1/sessions', null, { body: { email: owner.email, password: PASSWORD } })).status,
    ).toBe(401);
    await t.signIn(owner.email, NEW_PASSWORD);
    const audit = await listAudit(t.app.services.db, 'owner', (await ownerId(owner.email)).id);
    expect(JSON.parse(audit.find((e) => e.action === 'owner.password_change')?.details ?? '{}')).toEqual({
      other_sessions_ended: 1,
    });
  });

  it('refuses a wrong current password (audited) and a short new one, changing nothing', async () => {
    const owner = await account('wrong@shop.example');
    const [mine, other] = [await t.signIn(owner.email, PASSWORD), await t.signIn(owner.email, PASSWORD)];
    const wrong = await t.call('/cabinet/v1/account/password', mine, {
      body: { current_password: 'not the password at all', new_password: NEW_PASSWORD },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'current_password_incorrect']);
    const short = await t.call('/cabinet/v1/account/password', mine, {
      body: { current_password: PASSWORD, new_password: 'short' },
    });
    expect([short.status, short.body.error.details[0].path]).toEqual([400, 'body.new_password']);
    // This session and the other one still work; the old password still signs in.
    expect((await t.call('/cabinet/v1/account', mine)).status).toBe(200);
    expect((await t.call('/cabinet/v1/account', other)).status).toBe(200);
    await t.signIn(owner.email, PASSWORD);
    const audit = await listAudit(t.app.services.db, 'owner', (await ownerId(owner.email)).id);
    expect(audit.map((e) => e.action)).toContain('owner.password_change_refused');
    expect(audit.map((e) => e.action)).not.toContain('owner.password_change');
  });
});

describe("the account's sessions", () => {
  it("lists live sessions with times and address, this one marked, and ends one; never another account's", async () => {
    const owner = await account('sessions@shop.example');
    const first = await t.signIn(owner.email, PASSWORD);
    const second = await t.signIn(owner.email, PASSWORD);
    const list = await t.call('/cabinet/v1/account/sessions', second);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    for (const s of list.body.data)
      expect(s).toEqual({
        session_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        transport: 'bearer',
        created_at: expect.any(String),
        last_used_at: expect.any(String),
        expires_at: expect.any(String),
        address: '127.0.0.1',
        current: expect.any(Boolean),
      });
    expect(list.text).not.toContain(first);
    const firstId = list.body.data.find((s: { current: boolean }) => !s.current).session_id;

    const stranger = await account('stranger@shop.example');
    const theirs = await t.signIn(stranger.email, PASSWORD);
    const refused = await t.call(`/cabinet/v1/account/sessions/${firstId}`, theirs, { method: 'DELETE' });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'session_not_found']);
    expect((await t.call('/cabinet/v1/account', first)).status).toBe(200);

    expect((await t.call(`/cabinet/v1/account/sessions/${firstId}`, second, { method: 'DELETE' })).status).toBe(204);
    expect((await t.call('/cabinet/v1/account', first)).status).toBe(401);
    expect((await t.call('/cabinet/v1/account/sessions', second)).body.data).toHaveLength(1);
    const again = await t.call(`/cabinet/v1/account/sessions/${firstId}`, second, { method: 'DELETE' });
    expect(again.status).toBe(404);
  });
});
