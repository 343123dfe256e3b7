/**
 * TypeBox schemas of page invoices: the creation body and answer (cabinet, console), the
 * customer's view and choice (/pay/v1). They validate requests and generate the OpenAPI documents.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AmountText, AssetCode, DISPLAY_TEXT_PATTERN, PrintableId, StringEnum, Uuid } from '../http/schemas.js';
import { CreateInvoiceBody, InvoiceSchema } from '../invoices/schema.js';
import { INVOICE_STATUSES } from '../webhooks/event-types.js';
import { LANGUAGES } from './languages.js';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const CreatePageInvoiceBody = Type.Object(
  {
    order_id: PrintableId("The merchant's order identifier, one space with the /v1 invoices' order ids"),
    price: AmountText('The price in US dollars, plain decimal text such as "19.99"; one token is one dollar'),
    // Expiry, user and redirect URLs under the rules of /v1 invoices.
    expires_in: CreateInvoiceBody.properties.expires_in,
    currencies: Type.Optional(
      Type.Array(AssetCode, {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
        description:
          'The dollar-pegged assets the customer may pay in; without it, every one the merchant receives now that can hold the price',
      }),
    ),
    description: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: DISPLAY_TEXT_PATTERN,
        description:
          'What the customer pays for, shown on the page: 1 to 200 printable characters, no bidirectional controls (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069)',
      }),
    ),
    external_user_id: CreateInvoiceBody.properties.external_user_id,
    return_url: CreateInvoiceBody.properties.return_url,
    cancel_url: CreateInvoiceBody.properties.cancel_url,
  },
  { additionalProperties: false, title: 'CreatePageInvoiceRequest' },
);
export type CreatePageInvoiceBody = Static<typeof CreatePageInvoiceBody>;

/** What the creation routes (cabinet, console) say of themselves. */
export const CREATE_PAGE_INVOICE_DESCRIPTION =
  '201 a new page invoice, 200 the existing one of this order_id with the same price, currencies and user (409 order_id_conflict otherwise, or when a /v1 invoice has the order id). Without `currencies`, every dollar-pegged asset the merchant receives now that can hold the price and meets its minimum is offered; none: 422 no_payable_assets. A listed asset: 422 asset_not_supported (unknown), asset_not_offered (not pegged, or too few decimals for the price), asset_payments_disabled, asset_disabled_by_merchant, amount_below_minimum. Also 409 address_mode_mismatch (per_user without external_user_id), 422 redirect_url_not_allowed, 403 merchant_not_approved and merchant_disabled. Send `checkout_url` to the customer.';

export const PageInvoiceSchema = Type.Object(
  {
    invoice_id: Type.String({ format: 'uuid' }),
    order_id: Type.String(),
    status: StringEnum(
      INVOICE_STATUSES,
      'created (or expired) until the customer picks a token; then the invoice status',
    ),
    price: Type.String({ description: 'The price in US dollars' }),
    price_currency: Type.Literal('USD'),
    currencies: Type.Array(Type.String(), { description: 'The assets offered to the customer, in catalog order' }),
    asset: Nullable(Type.String({ description: 'The asset the customer picked; null until then' })),
    checkout_url: Type.String({ description: 'The payment page of this invoice: the link to send the customer' }),
    description: Nullable(Type.String()),
    expires_at: DateTime('When the invoice expires'),
    created_at: DateTime('When the invoice was created'),
  },
  { additionalProperties: false, title: 'PageInvoice' },
);
export type PageInvoiceView = Static<typeof PageInvoiceSchema>;

export const PayViewSchema = Type.Object(
  {
    invoice_id: Type.String({ format: 'uuid' }),
    merchant_name: Type.String(),
    description: Nullable(Type.String()),
    price: Type.String({ description: 'The price in US dollars' }),
    price_currency: Type.Literal('USD'),
    offered: Type.Array(
      Type.Object(
        {
          asset: Type.String(),
          amount: Type.String({
            description:
              'What the customer pays in this token: the price, plus the service fee when the customer pays it',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    status: StringEnum(INVOICE_STATUSES),
    asset: Nullable(Type.String({ description: 'The token picked; null until the choice' })),
    address: Nullable(Type.String({ description: 'The deposit address; null until the choice' })),
    amount_expected: Nullable(Type.String({ description: 'What to send; null until the choice' })),
    amount_received: Nullable(
      Type.String({ description: 'Received so far, late deposits included; null until the choice' }),
    ),
    amount_due: Nullable(
      Type.String({
        description:
          'What is still missing: amount_expected − amount_received, never below "0"; the amount to send and copy. Null until the choice',
      }),
    ),
    amount_overpaid: Nullable(
      Type.String({
        description: 'What was received beyond amount_expected, else "0"; null until the choice',
      }),
    ),
    address_permanent: Type.Boolean({
      description:
        "The address is the customer's permanent one (a per_user merchant's): never to be called one to stop sending to. false until the choice",
    }),
    expires_at: DateTime('When the invoice expires'),
    choose_by: DateTime(
      'Until when a token can be chosen: expires_at less min(PAY_MIN_TIME_TO_PAY, half the term), so there is time to pay',
    ),
    return_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    deposits: Type.Array(
      Type.Object(
        { tx_hash: Type.String(), amount: Type.String(), confirmations: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
    foreign_deposits: Type.Array(
      Type.Object(
        { asset: Type.String(), amount: Type.String(), tx_hash: Type.String() },
        { additionalProperties: false },
      ),
      {
        description:
          'Transfers of another catalog asset to the address since the choice: they do not pay this invoice; each stays a deposit credited to the merchant, who sees it',
      },
    ),
  },
  { additionalProperties: false, title: 'PaymentPageInvoice' },
);
export type PayView = Static<typeof PayViewSchema>;

export const ChooseAssetBody = Type.Object(
  { asset: AssetCode },
  { additionalProperties: false, title: 'ChooseAssetRequest' },
);

export const ReceiptEmailBody = Type.Object(
  {
    email: Type.String({
      format: 'email',
      maxLength: 254,
      description: 'Where the receipt is sent once the invoice is paid; never shown on /v1 or in webhooks',
    }),
    language: Type.Optional(
      StringEnum(
        LANGUAGES,
        "The receipt's language; by default the page's (its language cookie, else Accept-Language)",
      ),
    ),
  },
  { additionalProperties: false, title: 'ReceiptEmailRequest' },
);

export const InvoiceIdParams = Type.Object({ invoice_id: Uuid() }, { additionalProperties: false });

const orNull = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Null()], { description });
const p = InvoiceSchema.properties;

/**
 * An invoice in the cabinet: the /v1 Invoice, plus a page invoice's price and description, and
 * `awaiting_choice` for one whose customer has not picked the token (asset, address, amounts and
 * fees are null until then).
 */
export const CabinetInvoiceSchema = Type.Object(
  {
    ...p,
    asset: orNull(p.asset, 'null while a page invoice awaits the choice'),
    address: orNull(p.address, 'Deposit address; null while a page invoice awaits the choice'),
    amount_requested: orNull(p.amount_requested, "The merchant's amount; null while a page invoice awaits the choice"),
    amount_expected: orNull(
      p.amount_expected,
      'What the customer must send; null while a page invoice awaits the choice',
    ),
    amount_received: orNull(p.amount_received, 'Received so far; null while a page invoice awaits the choice'),
    amount_credited: orNull(p.amount_credited, 'Booked so far; null while a page invoice awaits the choice'),
    fees: orNull(p.fees, 'null while a page invoice awaits the choice'),
    price: orNull(Type.String(), 'A page invoice: its price in US dollars; null for an invoice made through /v1'),
    price_currency: orNull(Type.Literal('USD'), 'USD for a page invoice; null otherwise'),
    description: orNull(Type.String(), "A page invoice's description; null otherwise"),
    awaiting_choice: Type.Boolean({ description: 'A page invoice whose customer has not picked the token yet' }),
  },
  { additionalProperties: false, title: 'CabinetInvoice' },
);

export const ReceiptViewSchema = Type.Object(
  {
    invoice_id: Type.String({ format: 'uuid' }),
    merchant_name: Type.String(),
    order_id: Type.String({ description: "The merchant's order identifier" }),
    description: Nullable(Type.String()),
    price: Type.String({ description: 'The price in US dollars' }),
    price_currency: Type.Literal('USD'),
    status: StringEnum(
      ['confirmed', 'settled', 'paid_late'] as const,
      'Paid: confirmed, settled, or paid after the term',
    ),
    asset: Type.String({ description: 'The token paid in' }),
    amount_paid: Type.String({ description: 'What arrived in that token, late deposits included' }),
    paid_at: DateTime("When the last transaction was made (its block's time)"),
    transactions: Type.Array(
      Type.Object(
        {
          tx_hash: Type.String(),
          amount: Type.String(),
          at: DateTime("Its block's time"),
          explorer_url: Nullable(
            Type.String({ description: 'The transaction on Tronscan (mainnet and Nile); null on the devnet' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'PaymentReceipt' },
);
export type ReceiptView = Static<typeof ReceiptViewSchema>;
