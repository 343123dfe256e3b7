/** docs/cabinet-api.md is generated from the cabinet's OpenAPI document (npm run docs) and must match it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCabinetOpenApiDocument } from '../../src/http/openapi-doc.js';
import { renderApiMarkdown } from '../../src/http/openapi-markdown.js';
import { runCli } from '../helpers/cli.js';

const CABINET_MD = path.resolve(import.meta.dirname, '../../docs/cabinet-api.md');

describe('docs/cabinet-api.md', () => {
  it('is what npm run docs generates from the current cabinet document (else: run npm run docs)', async () => {
    const doc = await buildCabinetOpenApiDocument();
    const fresh = renderApiMarkdown(doc);
    const committed = readFileSync(CABINET_MD, 'utf8');
    expect(committed === fresh, 'docs/cabinet-api.md is stale: run `npm run docs` and commit it').toBe(true);
    expect(fresh).toContain('### POST /cabinet/v1/sessions');
    expect(fresh).toContain('No credentials needed.');
    expect(fresh).toContain('served at `GET /cabinet/v1/openapi.json` (no token needed)');
  });

  it('paygate openapi --cabinet prints the cabinet document: every route of the cabinet, no /v1 route', async () => {
    const r = await runCli(['openapi', '--cabinet', '--json'], {});
    expect(r.code).toBe(0);
    const paths = Object.keys(r.json.paths);
    expect(paths.every((p) => p.startsWith('/cabinet/v1/'))).toBe(true);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/cabinet/v1/account/setup',
        '/cabinet/v1/account',
        '/cabinet/v1/account/totp',
        '/cabinet/v1/account/totp/confirm',
        '/cabinet/v1/sessions',
        '/cabinet/v1/sessions/current',
        '/cabinet/v1/merchants',
        '/cabinet/v1/merchants/{merchant_id}',
        '/cabinet/v1/merchants/{merchant_id}/assets/{asset}',
        '/cabinet/v1/merchants/{merchant_id}/invoices',
        '/cabinet/v1/merchants/{merchant_id}/invoices/{invoice_id}',
        '/cabinet/v1/merchants/{merchant_id}/payouts',
        '/cabinet/v1/merchants/{merchant_id}/payouts/{payout_id}',
        '/cabinet/v1/merchants/{merchant_id}/balances',
        '/cabinet/v1/merchants/{merchant_id}/deposits',
        '/cabinet/v1/merchants/{merchant_id}/keys',
        '/cabinet/v1/merchants/{merchant_id}/keys/{key_id}',
        '/cabinet/v1/merchants/{merchant_id}/deliveries',
        '/cabinet/v1/merchants/{merchant_id}/deliveries/{delivery_id}',
      ]),
    );
    expect(r.json.openapi).toBe('3.1.0');
    const v1 = await runCli(['openapi', '--json'], {});
    expect(Object.keys(v1.json.paths).some((p) => p.startsWith('/cabinet'))).toBe(false);
  });
});
