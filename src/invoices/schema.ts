/** TypeBox schemas of the invoice routes: they validate requests and generate the OpenAPI document. */
import { Type, type Static } from '@sinclair/typebox';
import { AmountText, AssetCode, PrintableId, StringEnum } from '../http/schemas.js';

export const CreateInvoiceBody = Type.Object(
  {
    order_id: PrintableId("The merchant's order identifier; the idempotency key of this route"),
    asset: AssetCode,
    amount: AmountText('Requested amount in the asset, plain decimal text such as "10.5"'),
    expires_in: Type.Integer({ minimum: 60, maximum: 604800, description: 'Seconds until the invoice expires' }),
    external_user_id: Type.Optional(
      PrintableId("The merchant's identifier of the paying user (required in per_user mode)"),
    ),
    return_url: Type.Optional(
      Type.String({
        description: "Where the customer returns after paying; its origin must be allowed by the project's settings",
      }),
    ),
    cancel_url: Type.Optional(
      Type.String({ description: 'Where the customer goes after cancelling; same rule as return_url' }),
    ),
  },
  { additionalProperties: false, title: 'CreateInvoiceRequest' },
);
export type CreateInvoiceBody = Static<typeof CreateInvoiceBody>;

const DateTime = (description: string) => Type.String({ format: 'date-time', description });
const Amount = (description: string) => Type.String({ description });

export const DepositSchema = Type.Object(
  {
    tx_hash: Type.String(),
    amount: Amount('Amount of the deposit'),
    confirmations: Type.Integer(),
    status: StringEnum(['seen', 'confirmed']),
    block_time: DateTime('Time of the block holding the deposit'),
    late: Type.Boolean({ description: 'The block time is after expires_at' }),
  },
  { additionalProperties: false, title: 'Deposit' },
);

export const InvoiceSchema = Type.Object(
  {
    invoice_id: Type.String({ format: 'uuid' }),
    order_id: Type.String(),
    status: StringEnum(['created', 'seen', 'confirmed', 'underpaid', 'expired', 'paid_late', 'settled']),
    asset: Type.String(),
    network: Type.String(),
    address: Type.String({ description: 'Deposit address' }),
    amount_requested: Amount("The merchant's amount"),
    amount_expected: Amount('What the customer must send: requested, plus the service fee when the customer pays it'),
    amount_received: Amount('Sum of the deposits seen and confirmed, late ones included'),
    amount_credited: Amount("Booked to the merchant's balance for this invoice so far"),
    fees: Type.Object(
      {
        service: Type.Object(
          {
            payer: StringEnum(['merchant', 'customer']),
            percent: Type.String(),
            amount: Amount('Percent of amount_requested (rounded up) plus the fixed receiving amount'),
          },
          { additionalProperties: false },
        ),
        network: Type.Object(
          {
            payer: StringEnum(['merchant', 'customer']),
            quote: Type.Null(),
            quote_rate: Type.Null(),
            actual: Type.Null(),
            status: Type.Literal('included'),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    external_user_id: Type.Union([Type.String(), Type.Null()]),
    return_url: Type.Union([Type.String(), Type.Null()]),
    cancel_url: Type.Union([Type.String(), Type.Null()]),
    checkout_url: Type.Union([Type.String(), Type.Null()], {
      description:
        'null for an invoice created through POST /v1/invoices; for an invoice made from a page invoice (created by the cabinet or the console, its token picked by the customer), the payment page of it',
    }),
    expires_at: DateTime('When the invoice expires'),
    created_at: DateTime('When the invoice was created'),
    deposits: Type.Array(DepositSchema),
  },
  { additionalProperties: false, title: 'Invoice' },
);
export type InvoiceView = Static<typeof InvoiceSchema>;
export type DepositView = Static<typeof DepositSchema>;
