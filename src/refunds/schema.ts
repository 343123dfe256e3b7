/** The Refund object and the bodies of the refund routes (cabinet, console, claim page). */
import { Type, type Static } from '@sinclair/typebox';
import { AmountText, AssetCode, StringEnum, Uuid } from '../http/schemas.js';
import { PageQuery } from '../http/pagination.js';

export const REFUND_STATUSES = ['awaiting_address', 'requested', 'sent', 'failed', 'canceled', 'expired'] as const;

const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);

export const RefundSchema = Type.Object(
  {
    refund_id: Uuid('The refund; also the claim link’s only credential'),
    invoice_id: Uuid('The invoice refunded'),
    merchant_id: Uuid('The merchant whose balance pays'),
    asset: Type.String(),
    amount: Type.String({ description: 'Sent to the customer' }),
    fee: Type.String({ description: 'The payout fee, fixed at creation, reserved and charged on top' }),
    reason: Nullable(Type.String()),
    exception_id: Nullable(Type.String({ description: 'The exception the refund answers' })),
    status: StringEnum(REFUND_STATUSES),
    claim_url: Type.String({ description: 'The link for the customer, who gives an address there' }),
    address: Nullable(Type.String({ description: 'The customer’s TRON address, once given' })),
    payout_id: Nullable(Type.String({ description: 'The payout made with the address' })),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time', description: 'Until then the customer can give an address' }),
  },
  { additionalProperties: false, title: 'Refund' },
);
export type RefundView = Static<typeof RefundSchema>;

export const CreateRefundBody = Type.Object(
  {
    amount: AmountText('Amount to send back, plain decimal text; the payout fee is reserved on top'),
    asset: Type.Optional(AssetCode),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    exception_id: Type.Optional({
      ...Uuid('An open exception of this invoice that the refund answers'),
      examples: ['0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87'],
    }),
  },
  { additionalProperties: false, title: 'CreateRefundRequest' },
);
export type CreateRefundBody = Static<typeof CreateRefundBody>;

export const CREATE_REFUND_DESCRIPTION =
  '`asset` defaults to the invoice’s (or names the asset of one of its foreign deposits). The amount is at most what the invoice credited in that asset minus its refunds not canceled, expired or failed (422 refund_exceeds_received); the amount plus the asset’s payout fee is reserved from the available balance at once (422 insufficient_balance). 201 with status awaiting_address and the claim_url to send the customer, valid 30 days; `refund.created` is sent. 404 invoice_not_found for an invoice not of this merchant.';

export const RefundParams = Type.Object({ refund_id: Uuid('The refund') }, { additionalProperties: false });

export const RefundListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(REFUND_STATUSES)),
    invoice_id: Type.Optional(Uuid('Only this invoice’s refunds')),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const ClaimViewSchema = Type.Object(
  {
    refund_id: Uuid(),
    merchant_name: Type.String(),
    order_id: Type.String(),
    amount: Type.String(),
    asset: Type.String(),
    status: StringEnum(REFUND_STATUSES),
    address: Nullable(Type.String()),
    expires_at: Type.String({ format: 'date-time', description: 'Until then the customer can give an address' }),
    tx_hash: Nullable(Type.String({ description: 'The transaction that sent the refund; null until it is sent' })),
    explorer_url: Nullable(
      Type.String({
        description: 'That transaction on Tronscan (mainnet and Nile); null on the devnet and until sent',
      }),
    ),
  },
  { additionalProperties: false, title: 'RefundClaim' },
);
export type ClaimView = Static<typeof ClaimViewSchema>;

export const ClaimAddressBody = Type.Object(
  { address: Type.String({ minLength: 1, maxLength: 100, description: 'A TRON address (base58, T…)' }) },
  { additionalProperties: false, title: 'RefundAddressRequest' },
);
