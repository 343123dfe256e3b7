/**
 * What the /cabinet/v1 document says of itself (`GET /cabinet/v1/openapi.json`, `paygate openapi
 * --cabinet`, docs/cabinet-api.md); the one builder is src/http/openapi.ts.
 */
import type { Config } from '../config.js';
import type { SurfaceDocument } from '../http/openapi.js';
import { SESSION_COOKIE } from './sessions.js';

const DESCRIPTIONS: Record<string, string> = {
  '204': 'Done; no body',
  '401': 'unauthorized: wrong credentials, or a missing, ended, expired or used token (one body whatever the cause)',
  '403':
    'csrf_token_invalid: a change made with the session cookie without its X-CSRF-Token; role_not_allowed: the account holds this merchant as a viewer and the operation needs the role in its x-role (nothing was changed)',
  '404': "Not found (also for another account's merchant, or another merchant's record)",
  '409': 'invalid_state: the request does not fit the current state',
  '422': 'A business rule refused the request (see error.code); nothing was written',
};

const TAGS = [
  { name: 'account', description: "The owner's account: setup link, second factor, merchants" },
  { name: 'sessions', description: 'Sign-in and sign-out (bearer token or the web page’s cookie)' },
  { name: 'merchants', description: "The account's merchants, their switches and balances" },
  { name: 'invoices', description: 'Invoices and deposits, as the merchant API shows them' },
  { name: 'payouts', description: 'Payouts, as the merchant API shows them' },
  { name: 'members', description: "The merchant's people: owners invite and remove viewers" },
  { name: 'refunds', description: 'Refunds of invoices through a claim link for the customer' },
  { name: 'keys', description: 'API keys of a merchant (never a secret)' },
  { name: 'webhooks', description: 'The webhook delivery log with every attempt' },
  { name: 'exceptions', description: 'Payments that went wrong and what was done about them' },
  { name: 'reports', description: 'Accounting exports of the merchant over a period (CSV or JSON)' },
];

export function cabinetDocument(config: Config): SurfaceDocument {
  return {
    title: 'paygate merchant cabinet API',
    description:
      "The merchant owner's own view: an account sees only its merchants, and another account's merchant, invoice, payout, key or delivery answers exactly as an absent one. Served on the cabinet's own listener, never the public one. Every error has the body {error: {code, message, details?}}.",
    servers: [
      config.cabinetPublicUrl
        ? { url: config.cabinetPublicUrl, description: 'This installation (CABINET_PUBLIC_URL)' }
        : { url: '/', description: 'The host that served this document (set CABINET_PUBLIC_URL to name it)' },
    ],
    tags: TAGS,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'The token of POST /cabinet/v1/sessions' },
      cookie: {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description:
          'The web page’s session (POST /cabinet/v1/sessions?transport=cookie); every change also needs the X-CSRF-Token header',
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    descriptions: DESCRIPTIONS,
  };
}
