// The page's types, from the payment listener's OpenAPI document (web/types/pay-api.d.ts, generated):
// a shape changed on the server fails the page's typecheck instead of the page in a browser.
import type { components, operations } from '../../types/pay-api.js';

/** What GET /pay/v1/invoices/{invoice_id} answers: the page's view of the invoice. */
export type PayView = operations['getPaymentPageInvoice']['responses'][200]['content']['application/json'];

/** What POST /pay/v1/invoices/{invoice_id}/asset answers, 201 and 200 alike. */
export type ChoiceAnswer = operations['chooseAsset']['responses'][201]['content']['application/json'];

export type ChooseAssetRequest = operations['chooseAsset']['requestBody']['content']['application/json'];

export type ReceiptEmailRequest = operations['leaveReceiptEmail']['requestBody']['content']['application/json'];

/** What GET /pay/v1/invoices/{invoice_id}/receipt answers once the invoice is paid. */
export type ReceiptView = operations['getPaymentReceipt']['responses'][200]['content']['application/json'];

/** What a refund's claim link shows (GET /pay/v1/refunds/{refund_id}) and the address answer. */
export type ClaimView = operations['getRefundClaim']['responses'][200]['content']['application/json'];

export type RefundAddressRequest = operations['giveRefundAddress']['requestBody']['content']['application/json'];

export type InvoiceStatus = PayView['status'];

/** The error body of every refusal. */
export type ErrorBody = components['schemas']['ErrorBody'];
