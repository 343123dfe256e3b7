/**
 * The customer's routes of the payment page's listener: GET the page's view, POST the choice of the
 * token; and a refund's claim link.
 */
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/surface.js';
import { chooseAsset, getPayView, leaveReceiptEmail } from '../customer.js';
import { languageOf } from '../languages.js';
import { ChooseAssetBody, InvoiceIdParams, PayViewSchema, ReceiptEmailBody } from '../schema.js';
import { getClaim, giveAddress } from '../../refunds/claim.js';
import { ClaimAddressBody, ClaimViewSchema, RefundParams } from '../../refunds/schema.js';
import type { PageDeps } from '../service.js';

export async function registerPayRoutes(app: ApiServer, deps: PageDeps): Promise<void> {
  app.get(
    '/pay/v1/invoices/:invoice_id',
    {
      schema: {
        operationId: 'getPaymentPageInvoice',
        tags: ['payment page'],
        summary: 'What the payment page shows',
        description:
          "The merchant's name, the description, the price and the offered tokens with what the customer pays in each; after the choice the token, the deposit address, the amounts (amount_due the one to send now, amount_overpaid the excess), the status, the deposits and any deposits of another token to the address (foreign_deposits: they do not pay the invoice). 404 invoice_not_found for an unknown id and for an invoice made through the merchant API.",
        params: InvoiceIdParams,
        response: { 200: PayViewSchema, ...errorResponses(400, 404, 429) },
      },
    },
    async (req) => getPayView(deps, req.params.invoice_id),
  );

  app.post(
    '/pay/v1/invoices/:invoice_id/asset',
    {
      schema: {
        operationId: 'chooseAsset',
        tags: ['payment page'],
        summary: 'The customer chooses the token to pay in (final)',
        description:
          '201 with the deposit address and amount_expected (the offered amount of that token); the same token again is 200; another token is 409 asset_already_selected; past choose_by (less than min(PAY_MIN_TIME_TO_PAY, half the term) left to pay) 409 invoice_expired; a token not offered 422 asset_not_offered; one switched off since 422 asset_payments_disabled or asset_disabled_by_merchant.',
        params: InvoiceIdParams,
        body: ChooseAssetBody,
        response: { 200: PayViewSchema, 201: PayViewSchema, ...errorResponses(400, 403, 404, 409, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const { view, created } = await chooseAsset(deps, req.params.invoice_id, req.body.asset);
      return reply.code(created ? 201 : 200).send(view);
    },
  );

  app.post(
    '/pay/v1/invoices/:invoice_id/email',
    {
      schema: {
        operationId: 'leaveReceiptEmail',
        tags: ['payment page'],
        summary: 'The customer leaves an email address for the receipt (optional)',
        description:
          "204: stored with the page's language (the body's `language`, else the language cookie, else Accept-Language); a later address replaces it. The receipt is mailed once the invoice is paid. The address is never shown on /v1 or in webhooks.",
        params: InvoiceIdParams,
        body: ReceiptEmailBody,
        response: { 204: { type: 'null', description: 'Stored' }, ...errorResponses(400, 404, 429, 503) },
      },
    },
    async (req, reply) => {
      const language = req.body.language ?? languageOf(req.headers);
      await leaveReceiptEmail(deps, req.params.invoice_id, req.body.email, language);
      return reply.code(204).send();
    },
  );
}

/** The refund claim link's routes: what the customer sees, and the address the customer gives. */
export async function registerRefundClaimRoutes(app: ApiServer, deps: PageDeps): Promise<void> {
  app.get(
    '/pay/v1/refunds/:refund_id',
    {
      schema: {
        operationId: 'getRefundClaim',
        tags: ['refunds'],
        summary: 'What the refund claim page shows',
        description:
          'The merchant, the order, the amount and asset, the status and the address once given. 404 refund_not_found.',
        params: RefundParams,
        response: { 200: ClaimViewSchema, ...errorResponses(400, 404, 429) },
      },
    },
    async (req) => getClaim(deps.db, deps.network, req.params.refund_id),
  );

  app.post(
    '/pay/v1/refunds/:refund_id/address',
    {
      schema: {
        operationId: 'giveRefundAddress',
        tags: ['refunds'],
        summary: 'The customer gives the TRON address the refund is sent to (final)',
        description:
          '201 with the address, the refund then `requested` and its payout made; the same address again is 200; another is 409 refund_address_already_set; not a TRON address 400 at body.address; one of the gateway’s own addresses 422 refund_address_not_allowed; canceled or past expires_at 409 refund_not_claimable; a payout of the merchant already holding the reference `refund-{refund_id}` 409 reference_conflict (nothing changes).',
        params: RefundParams,
        body: ClaimAddressBody,
        response: { 200: ClaimViewSchema, 201: ClaimViewSchema, ...errorResponses(400, 404, 409, 413, 415, 422, 429) },
      },
    },
    async (req, reply) => {
      const { view, created } = await giveAddress(
        deps.db,
        deps.clock,
        deps.network,
        req.params.refund_id,
        req.body.address,
      );
      return reply.code(created ? 201 : 200).send(view);
    },
  );
}
