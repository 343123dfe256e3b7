/**
 * A merchant's team: owners invite viewers and remove them, never the last owner; a viewer reads
 * and exports, and every write operation the served OpenAPI document lists answers a viewer 403
 * role_not_allowed with nothing changed. Real HTTP on the cabinet listener.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantOwnerMerchant, setOwnerEnabled } from '../../src/owners/service.js';
import { PASSWORD, startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp;
let shop: string;
let ownerToken: string;

beforeAll(async () => {
  t = await startCabinetApp();
  const { merchant } = await t.merchant({ name: 'Team shop', siteUrl: 'https://team.example' });
  shop = merchant.merchant_id;
  const owner = await t.owner('boss@team.example', [shop]);
  ownerToken = await t.signIn(owner.email, owner.password);
});
afterAll(async () => {
  await t?.close();
});

/** A viewer of the shop, set up through the link the owner's invitation answered. */
async function invitedViewer(email: string): Promise<{ id: string; token: string }> {
  const r = await t.call(`/cabinet/v1/merchants/${shop}/members`, ownerToken, { body: { email, role: 'viewer' } });
  expect(r.status, r.text).toBe(201);
  expect(r.body).toMatchObject({ email, role: 'viewer', setup_url: expect.stringContaining('#setup=') });
  const setup = await t.call('/cabinet/v1/account/setup', null, {
    body: { setup_token: r.body.setup_token, password: PASSWORD },
  });
  expect(setup.status).toBe(200);
  return { id: r.body.account_id as string, token: await t.signIn(email, PASSWORD) };
}

const WRITES = ['post', 'put', 'patch', 'delete'] as const;

describe('viewers', () => {
  it('read the merchant, and every write operation of the served document answers them 403 role_not_allowed, changing nothing', async () => {
    const viewer = await invitedViewer('books@team.example');
    const account = await t.call('/cabinet/v1/account', viewer.token);
    expect(account.body.merchants).toEqual([expect.objectContaining({ merchant_id: shop, role: 'viewer' })]);
    expect((await t.call(`/cabinet/v1/merchants/${shop}/invoices`, viewer.token)).status).toBe(200);
    expect((await t.call(`/cabinet/v1/merchants/${shop}/members`, viewer.token)).body.error.code).toBe(
      'role_not_allowed',
    );

    const doc = (await t.call('/cabinet/v1/openapi.json', null)).body as {
      paths: Record<string, Record<string, { operationId: string; 'x-role'?: string }>>;
    };
    const state = async () => ({
      merchant: (await t.call(`/cabinet/v1/merchants/${shop}`, ownerToken)).body,
      members: (await t.call(`/cabinet/v1/merchants/${shop}/members`, ownerToken)).body,
      audit: await t.app.services.db.selectFrom('audit_log').select(['id']).execute(),
    });
    const before = await state();
    const tried: string[] = [];
    const accountOwn: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths))
      for (const method of WRITES) {
        const op = ops[method];
        if (!op) continue;
        if (!path.includes('{merchant_id}')) {
          accountOwn.push(op.operationId);
          continue;
        }
        expect(op['x-role'], op.operationId).toBe('owner');
        const url = path
          .replace(/\{merchant_id\}/g, shop)
          .replace(/\{asset\}/g, 'USDT')
          .replace(/\{\w+\}/g, randomUUID());
        const r = await t.call(url, viewer.token, { method: method.toUpperCase(), body: {} });
        expect([r.status, r.body?.error?.code], `${method} ${path}`).toEqual([403, 'role_not_allowed']);
        tried.push(op.operationId);
      }
    expect(tried).toEqual(expect.arrayContaining(['updateMerchant', 'setMerchantAsset', 'setWebhook', 'inviteMember']));
    // Writes outside a merchant are the account's own (sign-in, password, second factor, sessions, the mail it wants).
    for (const id of accountOwn)
      expect(id).toMatch(/Session|Account|Password|Totp|Recovery|setup|signIn|signOut|Notifications/i);
    expect(await state()).toEqual(before);
  });

  it('are invited at once when the account exists, and not when the operator disabled it', async () => {
    const other = await t.merchant({ name: 'Other', siteUrl: 'https://other.example' });
    const existing = await t.owner('both@team.example', [other.merchant.merchant_id]);
    const r = await t.call(`/cabinet/v1/merchants/${shop}/members`, ownerToken, {
      body: { email: 'BOTH@team.example', role: 'viewer' },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ email: existing.email, role: 'viewer', setup_token: null, setup_url: null });

    await setOwnerEnabled(t.app.services.db, t.clock, 'test', existing.email, false);
    const again = await t.call(`/cabinet/v1/merchants/${shop}/members`, ownerToken, {
      body: { email: 'gone@team.example', role: 'viewer' },
    });
    expect(again.status).toBe(201);
    await setOwnerEnabled(t.app.services.db, t.clock, 'test', 'gone@team.example', false);
    const refused = await t.call(`/cabinet/v1/merchants/${shop}/members`, ownerToken, {
      body: { email: 'gone@team.example', role: 'viewer' },
    });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'invalid_state']);
  });
});

describe('removing people', () => {
  it('removes a viewer at once, and never the last owner', async () => {
    const viewer = await invitedViewer('temp@team.example');
    const removed = await t.call(`/cabinet/v1/merchants/${shop}/members/${viewer.id}`, ownerToken, {
      method: 'DELETE',
    });
    expect(removed.status, removed.text).toBe(204);
    const after = await t.call(`/cabinet/v1/merchants/${shop}/invoices`, viewer.token);
    expect([after.status, after.body.error.code]).toEqual([404, 'merchant_not_found']);

    const me = (await t.call(`/cabinet/v1/merchants/${shop}/members`, ownerToken)).body.data.find(
      (m: { email: string }) => m.email === 'boss@team.example',
    );
    const last = await t.call(`/cabinet/v1/merchants/${shop}/members/${me.account_id}`, ownerToken, {
      method: 'DELETE',
    });
    expect([last.status, last.body.error.code]).toEqual([409, 'invalid_state']);

    // The operator's grant makes a second owner; the first may then leave.
    await grantOwnerMerchant(t.app.services.db, t.clock, 'test', 'temp@team.example', shop, 'owner');
    const left = await t.call(`/cabinet/v1/merchants/${shop}/members/${me.account_id}`, ownerToken, {
      method: 'DELETE',
    });
    expect(left.status).toBe(204);
  });
});
