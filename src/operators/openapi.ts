/**
 * What the document of the operator console `/admin/v1` says of itself (`GET
 * /admin/v1/openapi.json`, `paygate openapi --admin`, docs/admin-api.md); the one builder is
 * src/http/openapi.ts.
 */
import type { SurfaceDocument } from '../http/openapi.js';

const DESCRIPTIONS: Record<string, string> = {
  '202': 'Accepted: the running serve carries it out',
  '401':
    'unauthorized: the operator token is missing, malformed, unknown, revoked, expired, wrong, or used from outside its allowed networks',
  '403': 'operator_token_read_only: a read-only token may call GET routes only; nothing was changed',
  '404': 'Not found (see error.code)',
  '409': 'Conflict with the current state (see error.code)',
  '429':
    'rate_limited: too many requests, or too many tokens tried, from this address; retry after Retry-After seconds',
};

/** The operation groups; every operation names one of them in its schema's `tags`. */
const TAGS = [
  { name: 'merchants', description: 'Merchants: review, settings, switches, webhook endpoint, balances' },
  { name: 'keys', description: "Merchants' API keys: list, issue (shown once), revoke" },
  { name: 'money', description: 'Service fees, the payout whitelist and ledger corrections of a merchant' },
  { name: 'assets', description: "The asset catalog, the operator's switches and the fees of each asset" },
  { name: 'payouts', description: 'Payout review, cancellation and halts' },
  { name: 'refunds', description: 'Refunds of invoices: create, list, cancel' },
  { name: 'deliveries', description: 'Webhook deliveries: list, show with attempts, resend' },
  { name: 'wallet', description: 'The hot wallet, its payout limits, and sweeps into it' },
  { name: 'exceptions', description: 'Payments and payouts that need a person: list and resolve' },
  { name: 'accounting', description: 'Reports over a period (CSV or JSON) and the reserves check' },
];

export const CONSOLE_DOCUMENT: SurfaceDocument = {
  title: 'paygate operator console',
  description:
    'The HTTP twin of the paygate CLI for operators who automate, served only on the admin listener (ADMIN_HOST:ADMIN_PORT). Every request carries `Authorization: Bearer op_…` (tokens come from `paygate operator token issue`; a read-only token may call GET operations only, anything else is 403 operator_token_read_only); every change is in the audit log with the token id. Requests are limited per client address (ADMIN_RATE_LIMIT_PER_IP a minute). Every error has the body {error: {code, message, details?}}.',
  servers: [{ url: '/', description: 'The admin listener that served this document' }],
  tags: TAGS,
  securitySchemes: {
    operatorToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'op_<16 hex>_<43 base64url>',
      description: 'An operator token from `paygate operator token issue --name N`',
    },
  },
  security: [{ operatorToken: [] }],
  descriptions: DESCRIPTIONS,
  // Its 429 (the listener's per-IP limit, or a client's token-hashing budget) and 503 say when to retry.
  retryAfter: ['429', '503'],
};
