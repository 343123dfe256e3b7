/**
 * The console's OpenAPI document: served at GET /admin/v1/openapi.json without a token, the same
 * one `paygate openapi --admin` prints (while `paygate openapi` stays the /v1 document), naming
 * every console route, each behind the operator token and documenting the statuses it answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminOpenApiDocument } from '../../src/http/openapi-doc.js';
import { runCli } from '../helpers/cli.js';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { api, isErrorBody } from '../helpers/http.js';
import { operations } from '../helpers/openapi-check.js';

const ROUTES = [
  'GET /admin/v1/merchants',
  'POST /admin/v1/merchants',
  'GET /admin/v1/merchants/{merchant_id}',
  'PATCH /admin/v1/merchants/{merchant_id}',
  'POST /admin/v1/merchants/{merchant_id}/approve',
  'POST /admin/v1/merchants/{merchant_id}/reject',
  'POST /admin/v1/merchants/{merchant_id}/enable',
  'POST /admin/v1/merchants/{merchant_id}/disable',
  'GET /admin/v1/merchants/{merchant_id}/balances',
  'PUT /admin/v1/merchants/{merchant_id}/assets/{asset}',
  'PUT /admin/v1/merchants/{merchant_id}/webhook',
  'POST /admin/v1/merchants/{merchant_id}/webhook/test',
  'POST /admin/v1/merchants/{merchant_id}/invoices',
  'GET /admin/v1/merchants/{merchant_id}/keys',
  'POST /admin/v1/merchants/{merchant_id}/keys',
  'DELETE /admin/v1/merchants/{merchant_id}/keys/{key_id}',
  'POST /admin/v1/merchants/{merchant_id}/service-fees',
  'GET /admin/v1/merchants/{merchant_id}/whitelist',
  'POST /admin/v1/merchants/{merchant_id}/whitelist',
  'DELETE /admin/v1/merchants/{merchant_id}/whitelist/{asset}/{address}',
  'POST /admin/v1/merchants/{merchant_id}/ledger-entries',
  'GET /admin/v1/assets',
  'GET /admin/v1/assets/{asset}',
  'PATCH /admin/v1/assets/{asset}',
  'POST /admin/v1/assets/{asset}/payout-fees',
  'POST /admin/v1/assets/{asset}/invoice-fees',
  'GET /admin/v1/payouts',
  'GET /admin/v1/payouts/{payout_id}',
  'GET /admin/v1/payouts/unknown-on-chain',
  'POST /admin/v1/payouts/{payout_id}/approve',
  'POST /admin/v1/payouts/{payout_id}/reject',
  'POST /admin/v1/payouts/{payout_id}/cancel',
  'POST /admin/v1/payouts/{payout_id}/confirm',
  'GET /admin/v1/exceptions',
  'POST /admin/v1/exceptions/{exception_id}/resolve',
  'POST /admin/v1/invoices/{invoice_id}/refunds',
  'GET /admin/v1/refunds',
  'GET /admin/v1/refunds/{refund_id}',
  'POST /admin/v1/refunds/{refund_id}/cancel',
  'POST /admin/v1/payouts/halt',
  'POST /admin/v1/payouts/resume',
  'GET /admin/v1/deliveries',
  'GET /admin/v1/deliveries/{delivery_id}',
  'POST /admin/v1/deliveries/{delivery_id}/resend',
  'GET /admin/v1/wallet',
  'PUT /admin/v1/wallet/limits/{asset}',
  'GET /admin/v1/wallet/transfers',
  'POST /admin/v1/wallet/transfers/{txid}/acknowledge',
  'POST /admin/v1/sweeps',
  'GET /admin/v1/reports/invoices',
  'GET /admin/v1/reports/payouts',
  'GET /admin/v1/reports/deposits',
  'GET /admin/v1/reports/ledger',
  'GET /admin/v1/reserves',
];

let t: ConsoleTestApp;
let served: Record<string, any>;
beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
  const r = await api(t.admin, '/admin/v1/openapi.json');
  expect(r.status).toBe(200);
  served = r.body;
});
afterAll(() => t.close());

describe('the console OpenAPI document', () => {
  it('is OpenAPI 3.1 with every console route, and nothing else of the admin listener', () => {
    expect(served.openapi).toBe('3.1.0');
    const names = operations(served).map((o) => `${o.method.toUpperCase()} ${o.template}`);
    expect(names.sort()).toEqual([...ROUTES].sort());
  });

  it('is what paygate openapi --admin prints; paygate openapi stays the /v1 document', async () => {
    expect(await buildAdminOpenApiDocument()).toEqual(served);
    const admin = await runCli(['openapi', '--admin', '--json'], {});
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.json).toEqual(served);
    const v1 = await runCli(['openapi', '--json'], {});
    expect(Object.keys(v1.json.paths).every((p) => p.startsWith('/v1/'))).toBe(true);
    expect(v1.json.info.title).toBe('paygate merchant API');
  });

  it('documents, for every operation, the token, 400 and 401, and 413/415 where it takes a body', () => {
    for (const { method, template, op } of operations(served)) {
      const label = `${method} ${template}`;
      expect(op.operationId, label).toBeTruthy();
      expect(op.tags?.length, label).toBe(1);
      for (const status of ['400', '401']) expect(op.responses[status], `${label} ${status}`).toBeDefined();
      if (op.requestBody) for (const status of ['413', '415']) expect(op.responses[status], label).toBeDefined();
      expect(
        Object.keys(op.responses).some((s) => s.startsWith('2')),
        label,
      ).toBe(true);
    }
    expect(served.security).toEqual([{ operatorToken: [] }]);
  });

  it('refuses every operation without a token or with a wrong one: 401 with one body', async () => {
    const wrong = `op_0123456789abcdef_${'x'.repeat(43)}`;
    for (const { method, template } of operations(served)) {
      const url = template.replace(/\{[^}]+\}/g, (m) =>
        m === '{merchant_id}' || m === '{payout_id}' ? '7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f' : 'X',
      );
      for (const token of [null, wrong]) {
        const r = await t.call(url, { method: method.toUpperCase(), token, ...(method === 'get' ? {} : { body: {} }) });
        expect(r.status, `${method} ${template}`).toBe(401);
        expect(isErrorBody(r.body)).toBe(true);
        expect(r.body.error).toEqual({ code: 'unauthorized', message: 'Missing or invalid operator token' });
      }
    }
  });
});
