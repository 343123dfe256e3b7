/**
 * The console's reports over real HTTP: the same report as `paygate report`, streamed with its
 * content type and a file name, and the period and merchant refusals at their documented statuses.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { runCli } from '../helpers/cli.js';

let t: ConsoleTestApp;
let merchant: string;
let from: string;
let to: string;
beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
  from = t.clock.now().toISOString();
  merchant = (await t.call('/admin/v1/merchants', { body: { name: 'Books' } })).body.merchant_id;
  for (const [kind, amount] of [
    ['credit', '250'],
    ['debit', '40.5'],
  ] as const) {
    (t.clock as ManualClock).advance(1000);
    const r = await t.call(`/admin/v1/merchants/${merchant}/ledger-entries`, {
      body: { kind, asset: 'USDT_TRON', amount, memo: `=cmd|' /C calc'!A0 ${kind}` },
    });
    expect(r.status, r.text).toBe(201);
  }
  (t.clock as ManualClock).advance(1000);
  to = t.clock.now().toISOString();
});
afterAll(() => t.close());

describe('reports on the console', () => {
  it('answers the ledger report as JSON: opening + entries = closing, the same bytes as paygate report', async () => {
    const path = `/admin/v1/reports/ledger?from=${from}&to=${to}&merchant_id=${merchant}&format=json`;
    const r = await t.call(path);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="paygate-ledger-.*\.json"$/);
    expect(r.body.accounts).toEqual([
      expect.objectContaining({ merchant_id: merchant, asset: 'USDT_TRON', opening: '0', closing: '209.5' }),
    ]);
    expect(r.body.accounts[0].entries.map((e: { amount: string }) => e.amount)).toEqual(['250', '-40.5']);
    const cli = await runCli(
      ['report', 'ledger', '--from', from, '--to', to, '--merchant', merchant, '--format', 'json'],
      { DATABASE_URL: t.app.config.databaseUrl },
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(r.text).toBe(cli.stdout);
  });

  it('answers CSV by default, with a header row and formula cells neutralised', async () => {
    const r = await t.call(`/admin/v1/reports/ledger?from=${from}&to=${to}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = r.text.trim().split(/\r?\n/);
    expect(lines.length).toBeGreaterThan(2);
    expect(r.text).not.toMatch(/(^|,)"?=cmd/m);
  });

  it('serves each kind over an empty period as just its header', async () => {
    for (const kind of ['invoices', 'payouts', 'deposits']) {
      const r = await t.call(`/admin/v1/reports/${kind}?from=2020-01-01&to=2020-01-02`);
      expect(r.status, r.text).toBe(200);
      expect(r.text.trim().split(/\r?\n/)).toHaveLength(1);
    }
  });

  it('refuses a malformed or empty period at query.from / query.to, an unknown merchant with merchant_not_found', async () => {
    const bad = await t.call('/admin/v1/reports/invoices?from=yesterday&to=2026-01-01');
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.details[0].path).toBe('query.from');
    const noZone = await t.call('/admin/v1/reports/invoices?from=2026-01-01&to=2026-01-02T00:00:00');
    expect(noZone.body.error.details[0].path).toBe('query.to');
    const backwards = await t.call('/admin/v1/reports/invoices?from=2026-01-02&to=2026-01-01');
    expect(backwards.status).toBe(400);
    const missing = await t.call('/admin/v1/reports/payouts?from=2026-01-01');
    expect(missing.body.error.details.map((d: { path: string }) => d.path)).toContain('query.to');
    const unknown = await t.call(`/admin/v1/reports/ledger?from=${from}&to=${to}&merchant_id=${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('merchant_not_found');
    const noToken = await t.call(`/admin/v1/reports/ledger?from=${from}&to=${to}`, { token: null });
    expect(noToken.status).toBe(401);
  });
});
