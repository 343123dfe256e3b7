/**
 * What the /pay/v1 document says of itself (`GET /pay/v1/openapi.json`, `paygate openapi --pay`);
 * the one builder is src/http/openapi.ts.
 */
import { payUrl, type Config } from '../config.js';
import type { SurfaceDocument } from '../http/openapi.js';

const DESCRIPTIONS: Record<string, string> = {
  '404': 'invoice_not_found: no payment-page invoice has this id',
  '409': 'asset_already_selected (another token was chosen; the choice is final) or invoice_expired',
  '422':
    'asset_not_offered, asset_payments_disabled or asset_disabled_by_merchant (see error.code); nothing was chosen',
};

export function payDocument(config: Config): SurfaceDocument {
  return {
    title: 'paygate payment page API',
    description:
      "The customer's side of an invoice priced in dollars: what the payment page shows, and the customer's choice of the token. No key: the invoice id in the merchant's link is the only credential. Every error has the body {error: {code, message, details?}}.",
    servers: [
      config.payPublicUrl
        ? { url: payUrl(config), description: 'This installation (PAY_PUBLIC_URL)' }
        : { url: '/', description: 'The host that served this document (set PAY_PUBLIC_URL to name it)' },
    ],
    tags: [
      { name: 'payment page', description: "A page invoice as its customer sees it, and the customer's choice" },
      { name: 'refunds', description: "A refund's claim link: the customer gives the address" },
    ],
    securitySchemes: {},
    security: [],
    descriptions: DESCRIPTIONS,
  };
}
