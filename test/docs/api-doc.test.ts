/** docs/api.md and docs/admin-api.md are generated from the OpenAPI documents (npm run docs) and must match them. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAdminOpenApiDocument, buildOpenApiDocument } from '../../src/http/openapi-doc.js';
import { renderApiMarkdown } from '../../src/http/openapi-markdown.js';

const API_MD = path.resolve(import.meta.dirname, '../../docs/api.md');
const ADMIN_API_MD = path.resolve(import.meta.dirname, '../../docs/admin-api.md');

describe('docs/api.md', () => {
  it('is what npm run docs generates from the current OpenAPI document (else: run npm run docs)', async () => {
    const doc = await buildOpenApiDocument();
    const fresh = renderApiMarkdown(doc);
    const committed = readFileSync(API_MD, 'utf8');
    expect(committed === fresh, 'docs/api.md is stale: run `npm run docs` and commit it').toBe(true);
  });

  it('documents every operation of the document with its fields, and the webhook events when the document has them', async () => {
    const doc = await buildOpenApiDocument();
    const md = renderApiMarkdown(doc);
    for (const [route, item] of Object.entries<Record<string, { operationId: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(md).toContain(`### ${method.toUpperCase()} ${route}`);
        expect(md).toContain(`Operation id: \`${op.operationId}\``);
      }
    }
    expect(md).toContain('| `expires_in` | integer | yes | Seconds until the invoice expires. 60 to 604800 |');
    expect(md).toContain('| `fees.network.charged` | string | yes |');
    // A document with webhooks (OpenAPI 3.1) gets a section for them, with the payload fields.
    const withHooks = {
      ...doc,
      webhooks: {
        'invoice.settled': {
          post: {
            operationId: 'invoiceSettled',
            summary: 'An invoice reached settled',
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    title: 'InvoiceEvent',
                    required: ['id'],
                    properties: { id: { type: 'string', description: 'Event id' } },
                  },
                },
              },
            },
            responses: { '200': { description: 'Received' } },
          },
        },
      },
    };
    const hooked = renderApiMarkdown(withHooks);
    expect(hooked).toContain('## Webhook events');
    expect(hooked).toContain('### POST `invoice.settled`');
    expect(hooked).toContain('| `id` | string | yes | Event id |');
  });

  it('docs/admin-api.md is what npm run docs generates from the console document (else: run npm run docs)', async () => {
    const doc = await buildAdminOpenApiDocument();
    const fresh = renderApiMarkdown(doc);
    const committed = readFileSync(ADMIN_API_MD, 'utf8');
    expect(committed === fresh, 'docs/admin-api.md is stale: run `npm run docs` and commit it').toBe(true);
    expect(fresh).toContain('served at `GET /admin/v1/openapi.json` (no token needed)');
    expect(fresh).toContain('`Authorization: Bearer …` header');
    for (const [route, item] of Object.entries<Record<string, { operationId: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(fresh).toContain(`### ${method.toUpperCase()} ${route}`);
        expect(fresh).toContain(`Operation id: \`${op.operationId}\``);
      }
    }
  });
});
