/** docs/pay-api.md is generated from the payment page's OpenAPI document (npm run docs) and must match it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPayOpenApiDocument } from '../../src/http/openapi-doc.js';
import { renderApiMarkdown } from '../../src/http/openapi-markdown.js';

const PAY_MD = path.resolve(import.meta.dirname, '../../docs/pay-api.md');

describe('docs/pay-api.md', () => {
  it('is what npm run docs generates from the current payment page document (else: run npm run docs)', async () => {
    const doc = await buildPayOpenApiDocument();
    const fresh = renderApiMarkdown(doc);
    expect(readFileSync(PAY_MD, 'utf8') === fresh, 'docs/pay-api.md is stale: run `npm run docs` and commit it').toBe(
      true,
    );
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/pay/v1/invoices/{invoice_id}',
      '/pay/v1/invoices/{invoice_id}/asset',
      '/pay/v1/invoices/{invoice_id}/email',
      '/pay/v1/invoices/{invoice_id}/receipt',
      '/pay/v1/refunds/{refund_id}',
      '/pay/v1/refunds/{refund_id}/address',
    ]);
    expect(fresh).toContain('### POST /pay/v1/invoices/{invoice_id}/asset');
  });
});
