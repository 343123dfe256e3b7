/** What the /v1 document says of itself (the builder is openapi.ts): the merchant API by API key. */
import type { Config } from '../config.js';
import { openApiWebhooks } from '../webhooks/openapi.js';
import type { Json, SurfaceDocument } from './openapi.js';

const DESCRIPTIONS: Record<string, string> = {
  '200': 'OK (for a create: the existing record of this identifier)',
  '202': 'Accepted: a new payout',
  '401': 'unauthorized: X-Api-Key missing, malformed, unknown, revoked or wrong',
  '403': 'merchant_disabled or merchant_not_approved',
  '404': "Not found (also for another merchant's record)",
  '409': "Conflict with the existing record or the merchant's mode",
};

const TAGS = [
  {
    name: 'invoices',
    description: 'Deposit invoices: an amount of one asset to receive at an address before a deadline',
  },
  { name: 'addresses', description: 'Permanent deposit addresses of users (merchants in per_user mode)' },
  { name: 'payouts', description: 'Payouts from the merchant balance to whitelisted addresses' },
];

/**
 * Parts a feature adds to the whole /v1 document after generation (more tags…). A feature appends
 * its function here, in one line; each gets the generated document to extend.
 */
export const DOCUMENT_PARTS: Array<(doc: Json) => void> = [];

/**
 * Without PUBLIC_BASE_URL the document names the relative server `/`: the paths already start
 * with /v1, so clients resolve them against wherever they fetched the document from.
 */
function servers(config: Config): Array<{ url: string; description: string }> {
  if (config.publicBaseUrl) return [{ url: config.publicBaseUrl, description: 'This installation (PUBLIC_BASE_URL)' }];
  return [{ url: '/', description: 'The host that served this document (set PUBLIC_BASE_URL to name it)' }];
}

export function v1Document(config: Config): SurfaceDocument {
  return {
    title: 'paygate merchant API',
    description:
      'Deposit invoices, permanent deposit addresses and payouts on TRON. Every error has the body {error: {code, message, details?}}.',
    tags: TAGS,
    servers: servers(config),
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
    security: [{ apiKey: [] }],
    descriptions: DESCRIPTIONS,
    extend: (doc) => {
      doc.webhooks = openApiWebhooks();
      for (const part of DOCUMENT_PARTS) part(doc);
    },
  };
}
