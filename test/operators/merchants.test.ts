/**
 * The console's merchants and API keys over real HTTP on the admin listener: every route, its
 * refusals, the /v1 conventions (strict bodies, 413/415, validation details, pagination), a change
 * seen by /v1, and the audit log naming the token. Every answer is checked against the served
 * OpenAPI document by the helper.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { api } from '../helpers/http.js';

let t: ConsoleTestApp;
beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
});
afterAll(() => t.close());

const create = async (name: string, extra: Record<string, unknown> = {}) => {
  // One second apart: lists are newest first.
  (t.clock as ManualClock).advance(1000);
  const r = await t.call('/admin/v1/merchants', { body: { name, ...extra } });
  expect(r.status, r.text).toBe(201);
  return r.body.merchant_id as string;
};
const expectError = (r: { status: number; body: any; text: string }, status: number, code: string) => {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error.code, r.text).toBe(code);
};
/** A /v1 read with the merchant's key: 404 invoice_not_found while the key and merchant are good. */
const v1 = (key: string) => api(t.url, `/v1/invoices/${randomUUID()}`, { key });

describe('merchants', () => {
  it('creates a merchant (201) with the fields of merchant create --json', async () => {
    const r = await t.call('/admin/v1/merchants', {
      body: { name: 'Coffee', address_mode: 'per_user', site_url: 'https://coffee.example/' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'Coffee',
      address_mode: 'per_user',
      approval: 'pending',
      enabled: true,
      site_url: 'https://coffee.example',
      confirmations: null,
    });
  });

  it('refuses bad bodies as /v1 does: validation details, 413, 415, malformed JSON', async () => {
    const extra = await t.call('/admin/v1/merchants', { body: { name: 'x', colour: 'red' } });
    expectError(extra, 400, 'validation_failed');
    expect(extra.body.error.details).toEqual([{ path: 'body.colour', message: 'is not allowed' }]);
    const missing = await t.call('/admin/v1/merchants', { body: { address_mode: 'sideways' } });
    expectError(missing, 400, 'validation_failed');
    expect(missing.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'body.name', message: 'is required' },
        { path: 'body.address_mode', message: 'must be one of "per_invoice", "per_user"' },
      ]),
    );
    const big = await t.call('/admin/v1/merchants', { body: { name: 'x'.repeat(17 * 1024) } });
    expectError(big, 413, 'bad_request');
    const text = await t.call('/admin/v1/merchants', { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expectError(text, 415, 'bad_request');
    const broken = await t.call('/admin/v1/merchants', {
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expectError(broken, 400, 'bad_request');
    // A service's own check of a field answers in the same shape, naming the field.
    const url = await t.call('/admin/v1/merchants', { body: { name: 'x', site_url: 'ftp://files.example' } });
    expectError(url, 400, 'validation_failed');
    expect(url.body.error.details).toEqual([{ path: 'body.site_url', message: expect.stringContaining('http') }]);
  });

  it('lists merchants newest first, a page at a time, with an opaque cursor', async () => {
    const ids = [await create('Page 1'), await create('Page 2'), await create('Page 3')];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = await t.call(`/admin/v1/merchants${q}`);
      expect(page.status, page.text).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((m: { merchant_id: string }) => m.merchant_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 3)).toEqual([...ids].reverse());
    const all = await t.call('/admin/v1/merchants?limit=500');
    expect(all.body.data.map((m: { merchant_id: string }) => m.merchant_id)).toEqual(seen);
    expectError(await t.call('/admin/v1/merchants?cursor=bogus'), 400, 'validation_failed');
    const tooMany = await t.call('/admin/v1/merchants?limit=501');
    expect(tooMany.body.error.details[0].path).toBe('query.limit');
    expectError(await t.call('/admin/v1/merchants?colour=red'), 400, 'validation_failed');
  });

  it('shows a merchant with its payout limits, and updates settings and limits (PATCH)', async () => {
    const id = await create('Settings');
    const shown = await t.call(`/admin/v1/merchants/${id.toUpperCase()}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ merchant_id: id, payout_auto_approve_limit: '0', payout_daily_limit: 'none' });
    const patched = await t.call(`/admin/v1/merchants/${id}`, {
      method: 'PATCH',
      body: { site_url: 'https://shop.example', confirmations: 25, payout_auto_approve_limit: '100.50' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      site_url: 'https://shop.example',
      confirmations: 25,
      payout_auto_approve_limit: '100.5',
      payout_daily_limit: 'none',
    });
    const cleared = await t.call(`/admin/v1/merchants/${id}`, {
      method: 'PATCH',
      body: { site_url: null, confirmations: null },
    });
    expect(cleared.body).toMatchObject({ site_url: null, confirmations: null, payout_auto_approve_limit: '100.5' });
    expectError(await t.call(`/admin/v1/merchants/${id}`, { method: 'PATCH', body: {} }), 400, 'validation_failed');
    const limit = await t.call(`/admin/v1/merchants/${id}`, {
      method: 'PATCH',
      body: { confirmations: 3, payout_daily_limit: 'lots' },
    });
    expectError(limit, 400, 'validation_failed');
    expect(limit.body.error.details[0].path).toBe('body.payout_daily_limit');
    // Nothing of a refused request is written.
    expect((await t.call(`/admin/v1/merchants/${id}`)).body.confirmations).toBeNull();
    expectError(await t.call(`/admin/v1/merchants/${randomUUID()}`), 404, 'merchant_not_found');
    expectError(
      await t.call(`/admin/v1/merchants/${randomUUID()}`, { method: 'PATCH', body: { confirmations: 2 } }),
      404,
      'merchant_not_found',
    );
    expectError(await t.call('/admin/v1/merchants/not-a-uuid'), 400, 'validation_failed');
  });

  it("approves, rejects, disables and enables; a disabled merchant's key answers 403 on /v1", async () => {
    const id = await create('Switches');
    const approved = await t.call(`/admin/v1/merchants/${id}/approve`, { method: 'POST' });
    expect(approved.body).toMatchObject({ approval: 'approved', enabled: true });
    const key = (await t.call(`/admin/v1/merchants/${id}/keys`, { method: 'POST' })).body.api_key as string;
    expect((await v1(key)).body.error.code).toBe('invoice_not_found');

    const disabled = await t.call(`/admin/v1/merchants/${id}/disable`, { method: 'POST' });
    expect(disabled.body).toMatchObject({ enabled: false, disabled_by: ['operator'] });
    expect((await t.call(`/admin/v1/merchants/${id}`)).body).toMatchObject({
      enabled: false,
      disabled_by: ['operator'],
    });
    const refused = await v1(key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('merchant_disabled');

    const enabled = await t.call(`/admin/v1/merchants/${id}/enable`, { method: 'POST' });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_by: [] });
    expect((await v1(key)).body.error.code).toBe('invoice_not_found');
    expect((await t.call(`/admin/v1/merchants/${id}/reject`, { method: 'POST' })).body.approval).toBe('rejected');
    for (const action of ['approve', 'reject', 'enable', 'disable'])
      expectError(
        await t.call(`/admin/v1/merchants/${randomUUID()}/${action}`, { method: 'POST' }),
        404,
        'merchant_not_found',
      );
  });

  it('shows balances, switches an asset for the merchant, refuses an unknown asset', async () => {
    const id = await create('Assets');
    expect((await t.call(`/admin/v1/merchants/${id}/balances`)).body).toEqual({ merchant_id: id, balances: [] });
    const off = await t.call(`/admin/v1/merchants/${id}/assets/USDT_TRON`, {
      method: 'PUT',
      body: { payments: false },
    });
    expect(off.body).toEqual({ merchant_id: id, asset: 'USDT_TRON', payments: false });
    expectError(
      await t.call(`/admin/v1/merchants/${id}/assets/NOPE_TRON`, { method: 'PUT', body: { payments: true } }),
      422,
      'asset_not_supported',
    );
    expectError(
      await t.call(`/admin/v1/merchants/${id}/assets/USDT_TRON`, { method: 'PUT', body: { payments: 'on' } }),
      400,
      'validation_failed',
    );
    expectError(await t.call(`/admin/v1/merchants/${randomUUID()}/balances`), 404, 'merchant_not_found');
  });
});

describe('webhook endpoint', () => {
  it('sets the endpoint with the secret shown once, rotates it, and refuses a private URL unless allowed', async () => {
    const id = await create('Hooks');
    const first = await t.call(`/admin/v1/merchants/${id}/webhook`, {
      method: 'PUT',
      body: { url: 'https://hooks.example/paygate' },
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.secret).toMatch(/^whsec_/);
    const again = await t.call(`/admin/v1/merchants/${id}/webhook`, {
      method: 'PUT',
      body: { url: 'https://hooks.example/v2' },
    });
    expect(again.body).toMatchObject({ url: 'https://hooks.example/v2', secret: null, previous_secret_until: null });
    const rotated = await t.call(`/admin/v1/merchants/${id}/webhook`, {
      method: 'PUT',
      body: { url: 'https://hooks.example/v2', rotate_secret: true },
    });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first.body.secret);
    expect(rotated.body.previous_secret_until).toEqual(expect.any(String));
    const local = await t.call(`/admin/v1/merchants/${id}/webhook`, {
      method: 'PUT',
      body: { url: 'http://127.0.0.1:9/hook' },
    });
    expectError(local, 400, 'validation_failed');
    expect(local.body.error.details[0].path).toBe('body.url');
    expect(local.body.error.details[0].message).toContain('allow_private');
    expect(local.body.error.details[0].message).not.toContain('--');
  });

  it('sends a signed test event to the endpoint and answers what the receiver said', async () => {
    const { createServer } = await import('node:http');
    const got: Array<Record<string, unknown>> = [];
    const receiver = createServer((req, res) => {
      got.push(req.headers);
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const id = await create('Test events');
      expectError(await t.call(`/admin/v1/merchants/${id}/webhook/test`, { method: 'POST' }), 409, 'invalid_state');
      const port = (receiver.address() as { port: number }).port;
      await t.call(`/admin/v1/merchants/${id}/webhook`, {
        method: 'PUT',
        body: { url: `http://127.0.0.1:${port}/hook`, allow_private: true },
      });
      const r = await t.call(`/admin/v1/merchants/${id}/webhook/test`, { method: 'POST' });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ status_code: 204, error: null, url: `http://127.0.0.1:${port}/hook` });
      expect(got[0]?.['webhook-signature']).toMatch(/^v1,/);
    } finally {
      receiver.close();
    }
  });
});

describe('API keys', () => {
  it('issues a key shown once (201), lists keys a page at a time, revokes one (then /v1 refuses it)', async () => {
    const id = await create('Keys');
    await t.call(`/admin/v1/merchants/${id}/approve`, { method: 'POST' });
    const issued: Array<{ key_id: string; api_key: string }> = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.call(`/admin/v1/merchants/${id}/keys`, { method: 'POST' });
      expect(r.status).toBe(201);
      expect(r.body.api_key).toMatch(/^sk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      issued.push(r.body);
    }
    const first = await t.call(`/admin/v1/merchants/${id}/keys?limit=2`);
    expect(first.body.data).toHaveLength(2);
    for (const k of first.body.data) expect(k).not.toHaveProperty('api_key');
    const second = await t.call(`/admin/v1/merchants/${id}/keys?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ next_cursor: null });
    const listed = [...first.body.data, ...second.body.data].map((k: { key_id: string }) => k.key_id);
    expect(listed.sort()).toEqual(issued.map((k) => k.key_id).sort());

    const victim = issued[0] as { key_id: string; api_key: string };
    expect((await v1(victim.api_key)).body.error.code).toBe('invoice_not_found');
    const revoked = await t.call(`/admin/v1/merchants/${id}/keys/${victim.key_id}`, { method: 'DELETE' });
    expect(revoked.body).toMatchObject({ key_id: victim.key_id, status: 'revoked' });
    expect((await v1(victim.api_key)).status).toBe(401);
    expect((await v1((issued[1] as { api_key: string }).api_key)).body.error.code).toBe('invoice_not_found');
  });

  it("answers api_key_not_found for an unknown key or another merchant's, merchant_not_found for an unknown merchant", async () => {
    const a = await create('Key owner');
    const b = await create('Other');
    const key = (await t.call(`/admin/v1/merchants/${a}/keys`, { method: 'POST' })).body.key_id as string;
    expectError(await t.call(`/admin/v1/merchants/${b}/keys/${key}`, { method: 'DELETE' }), 404, 'api_key_not_found');
    expectError(
      await t.call(`/admin/v1/merchants/${a}/keys/0123456789abcdef`, { method: 'DELETE' }),
      404,
      'api_key_not_found',
    );
    expectError(
      await t.call(`/admin/v1/merchants/${randomUUID()}/keys/${key}`, { method: 'DELETE' }),
      404,
      'merchant_not_found',
    );
    expectError(await t.call(`/admin/v1/merchants/${randomUUID()}/keys`), 404, 'merchant_not_found');
    expectError(
      await t.call(`/admin/v1/merchants/${randomUUID()}/keys`, { method: 'POST' }),
      404,
      'merchant_not_found',
    );
    // Still active: the refused revocation changed nothing.
    const listed = await t.call(`/admin/v1/merchants/${a}/keys`);
    expect(listed.body.data[0]).toMatchObject({ key_id: key, status: 'active' });
  });
});

describe('API key terms over the console', () => {
  it('issues a key with a label, an expiry and client networks, as key issue does; /v1 refuses it from elsewhere', async () => {
    const id = await create('Terms');
    await t.call(`/admin/v1/merchants/${id}/approve`, { method: 'POST' });
    const r = await t.call(`/admin/v1/merchants/${id}/keys`, {
      body: { label: 'billing server', expires_in: '90d', allow_ip: ['10.0.0.0/8'] },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ label: 'billing server', allowed_networks: ['10.0.0.0/8'], status: 'active' });
    expect(Date.parse(r.body.expires_at) - t.clock.now().getTime()).toBe(90 * 86_400_000);
    // The test client connects from 127.0.0.1: outside 10.0.0.0/8, the same 401 as any bad key.
    expect((await v1(r.body.api_key)).status).toBe(401);
    const local = await t.call(`/admin/v1/merchants/${id}/keys`, { body: { allow_ip: ['127.0.0.0/8'] } });
    expect((await v1(local.body.api_key)).body.error.code).toBe('invoice_not_found');
  });

  it('refuses malformed terms with validation_failed naming the field, and issues nothing', async () => {
    const id = await create('Bad terms');
    for (const [body, path] of [
      [{ expires_in: 'soon' }, 'body.expires_in'],
      [{ allow_ip: ['10.0.0.1/8'] }, 'body.allow_ip'],
      [{ label: 'x', colour: 'red' }, 'body.colour'],
    ] as const) {
      const r = await t.call(`/admin/v1/merchants/${id}/keys`, { body });
      expectError(r, 400, 'validation_failed');
      expect(
        r.body.error.details.map((d: { path: string }) => d.path),
        r.text,
      ).toContain(path);
    }
    expect((await t.call(`/admin/v1/merchants/${id}/keys`)).body.data).toEqual([]);
  });
});

describe('the audit log', () => {
  it('records every console change with the token id as the actor', async () => {
    const id = await create('Audited');
    await t.call(`/admin/v1/merchants/${id}`, { method: 'PATCH', body: { confirmations: 5 } });
    await t.call(`/admin/v1/merchants/${id}/approve`, { method: 'POST' });
    const key = (await t.call(`/admin/v1/merchants/${id}/keys`, { method: 'POST' })).body.key_id as string;
    await t.call(`/admin/v1/merchants/${id}/keys/${key}`, { method: 'DELETE' });
    await t.call(`/admin/v1/merchants/${id}/assets/TRX_TRON`, { method: 'PUT', body: { payments: false } });
    await t.call(`/admin/v1/merchants/${id}/webhook`, { method: 'PUT', body: { url: 'https://hooks.example/a' } });
    const rows = await t.app.services.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('merchant_id', '=', id)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action)).toEqual([
      'merchant.create',
      'merchant.update',
      'merchant.approve',
      'api_key.issue',
      'api_key.revoke',
      'merchant.asset',
      'merchant.webhook',
    ]);
    for (const r of rows) expect(r.actor).toBe(t.tokenId);
  });
});
