/** Console schemas of payouts and halts: the fields of `payout list|approve|reject|cancel|halt|resume --json`. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { PAYOUT_STATUSES, PayoutSchema } from '../../payouts/schema.js';
import { AssetParam, Nullable, PageQuery, Time, Uuid } from './common.js';

export const OperatorPayoutSchema = Type.Object(
  {
    ...PayoutSchema.properties,
    merchant_id: Uuid('The merchant'),
    reviewed_by: Nullable(Type.String(), 'The actor that approved, rejected or cancelled it'),
    reviewed_at: Nullable(Time()),
    reject_reason: Nullable(Type.String()),
    wait_reason: Nullable(Type.String(), 'Why a queued payout waits (hot wallet short, a hot wallet limit…)'),
    fail_reason: Nullable(Type.String(), 'Receipt result of a failed payout'),
    hold_reason: Nullable(
      Type.String(),
      'Why the worker will not sign it until it is approved or cancelled (set by paygate restore)',
    ),
  },
  { additionalProperties: false, title: 'OperatorPayout' },
);

export const PayoutListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(PAYOUT_STATUSES, 'Only payouts in this status')),
    merchant_id: Type.Optional(Uuid('Only payouts of this merchant')),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const PayoutParams = Type.Object({ payout_id: Uuid('The payout') }, { additionalProperties: false });

export const ApproveBody = Type.Object(
  {
    chain_checked: Type.Optional(
      Type.Boolean({
        description:
          'The operator checked the chain: none of the transfers out that paygate did not sign and that match a held payout paid it (required then, else 409 invalid_state)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ConfirmBody = Type.Object(
  {
    txid: Type.String({
      minLength: 1,
      maxLength: 80,
      description: 'The transaction out of the hot wallet that paid the held payout (64 hex characters)',
    }),
  },
  { additionalProperties: false },
);

export const ReasonBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Why (kept for the audit; not sent to the merchant)',
    }),
  },
  { additionalProperties: false, title: 'PayoutReasonRequest' },
);

export const HaltBody = Type.Object(
  {
    asset: Type.Optional(AssetParam),
    worker: Type.Optional(
      Type.Boolean({ description: 'Also the payout worker (halt) / resume it too (resume); default false' }),
    ),
    reason: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Note for the audit log (never shown to merchants)' }),
    ),
  },
  { additionalProperties: false, title: 'PayoutHaltRequest' },
);

export const HaltsSchema = Type.Object(
  {
    halts: Type.Array(
      Type.Object(
        {
          scope: Type.String({ description: 'An asset code, or "*" for every asset' }),
          requests_halted: Type.Boolean(),
          worker_halted: Type.Boolean(),
          updated_at: Time(),
          updated_by: Type.String(),
        },
        { additionalProperties: false, title: 'PayoutHalt' },
      ),
      { description: 'Every halt in force after the change' },
    ),
  },
  { additionalProperties: false, title: 'PayoutHalts' },
);

export const UnknownOnChainSchema = Type.Object(
  {
    reading: StringEnum(
      ['in_progress', 'done', 'none'],
      'The chain reading since a restore: in_progress, done, or none when no restore started one',
    ),
    reading_from_block: Nullable(Type.Integer()),
    reading_until_block: Nullable(Type.Integer()),
    payouts: Type.Array(
      Type.Object(
        {
          ...OperatorPayoutSchema.properties,
          candidates: Type.Array(
            Type.Object(
              { tx_hash: Type.String(), block_number: Type.Integer(), block_time: Time() },
              { additionalProperties: false, title: 'ChainCandidate' },
            ),
            { description: 'Transfers out that paygate did not sign with its asset, address and amount' },
          ),
        },
        { additionalProperties: false, title: 'HeldPayout' },
      ),
      { description: 'Payouts held since a restore that the chain did not settle' },
    ),
    unknown_transfers: Type.Array(
      Type.Object(
        {
          tx_hash: Type.String(),
          asset: Type.String(),
          to_address: Type.String(),
          amount: Type.String(),
          block_number: Type.Integer(),
        },
        { additionalProperties: false, title: 'UnknownTransfer' },
      ),
      { description: 'Transfers out that paygate did not sign and no held payout took (newest 100)' },
    ),
  },
  { additionalProperties: false, title: 'UnknownOnChain' },
);
