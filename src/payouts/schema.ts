/** TypeBox schemas of the payout routes: they validate requests and generate the OpenAPI document. */
import { Type, type Static } from '@sinclair/typebox';
import type { PayoutStatus } from '../db/schema.js';
import { AmountText, AssetCode, PrintableId, StringEnum } from '../http/schemas.js';

/** Every payout status, in the order of a payout's life: the one list the API, console and cabinet use. */
export const PAYOUT_STATUSES = [
  'pending_review',
  'approved',
  'queued',
  'signing',
  'broadcast',
  'confirmed',
  'rejected',
  'failed',
] as const satisfies readonly PayoutStatus[];
// A status the table gains and this list lacks does not compile.
const listsEvery: [PayoutStatus] extends [(typeof PAYOUT_STATUSES)[number]] ? true : false = true;
void listsEvery;
export const REVIEW_REASONS = [
  'amount_above_auto_approve_limit',
  'daily_limit_exceeded',
  'first_payout_to_address',
] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

export const CreatePayoutBody = Type.Object(
  {
    reference: PrintableId("The merchant's identifier of the payout; the idempotency key of this route"),
    asset: AssetCode,
    to_address: Type.String({
      minLength: 20,
      maxLength: 100,
      pattern: '^[A-Za-z0-9]+$',
      description: 'Destination address, on the whitelist for the asset',
    }),
    amount: AmountText('Amount to send, plain decimal text such as "10.5"; the payout fee is charged on top'),
  },
  { additionalProperties: false, title: 'CreatePayoutRequest' },
);
export type CreatePayoutBody = Static<typeof CreatePayoutBody>;

export const PayoutSchema = Type.Object(
  {
    payout_id: Type.String({ format: 'uuid' }),
    reference: Type.String(),
    status: StringEnum(PAYOUT_STATUSES),
    asset: Type.String(),
    network: Type.String(),
    to_address: Type.String(),
    amount: Type.String({ description: 'Amount sent to to_address' }),
    fees: Type.Object(
      {
        network: Type.Object(
          {
            payer: Type.Literal('merchant'),
            amount: Type.String({
              description: 'The payout fee in force at creation: fixed plus percent of amount, rounded up',
            }),
            charged: Type.String({
              description: 'Fee debited so far: "0" until confirmed, and "0" once rejected or failed',
            }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    review_reasons: Type.Array(Type.Union(REVIEW_REASONS.map((r) => Type.Literal(r)))),
    tx_hash: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, title: 'Payout' },
);
export type PayoutView = Static<typeof PayoutSchema>;
