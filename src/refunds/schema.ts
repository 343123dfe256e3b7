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
    exception_id: Type.Optional(Uuid('An open exception of this invoice that the refund answers')),
  },
  { additionalProperties: false, title: 'CreateRefundRequest' },
);
export type CreateRefundBody = Static<typeof CreateRefundBody>;

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
  },
  { additionalProperties: false, title: 'RefundClaim' },
);
export type ClaimView = Static<typeof ClaimViewSchema>;

export const ClaimAddressBody = Type.Object(
  { address: Type.String({ minLength: 1, maxLength: 100, description: 'A TRON address (base58, T…)' }) },
  { additionalProperties: false, title: 'RefundAddressRequest' },
);
