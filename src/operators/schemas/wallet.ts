/** Console schemas of the wallet: the fields of `wallet show|limit --json` and `sweep --json`. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { PAYOUT_STATUSES } from '../../payouts/schema.js';
import { AssetParam, Nullable, PageQuery, Time } from './common.js';

export const WalletSchema = Type.Object(
  {
    hot_address: Type.String(),
    hot_path: Type.String(),
    deposit_xpub: Nullable(
      Type.String({
        description:
          'Extended public key of the deposit account (never the seed); null to a read-only token: it names every deposit address of every merchant',
      }),
    ),
    deposit_path: Type.String(),
    deposit_addresses_in_use: Type.Integer(),
    next_index: Type.Integer({ description: 'Next deposit derivation index to hand out' }),
    hot_wallet: Nullable(
      Type.Object(
        {
          address: Type.String(),
          trx: Type.String(),
          tokens: Type.Record(Type.String(), Type.String(), { description: 'Balance per TRC20 asset code' }),
          energy_available: Type.String(),
          bandwidth_available: Type.String(),
          staked_for_energy_trx: Type.String(),
          delegated_energy_trx: Type.String(),
        },
        { additionalProperties: false, title: 'HotWallet' },
      ),
      'What the node says of the hot wallet; null when the node could not be asked',
    ),
    hot_wallet_error: Type.Optional(Type.String({ description: 'Why the node could not be asked' })),
    in_deposit_addresses: Type.Array(
      Type.Object({ asset: Type.String(), amount: Type.String() }, { additionalProperties: false }),
      { description: 'What deposit addresses still hold per asset' },
    ),
    payouts_waiting: Type.Array(
      Type.Object(
        {
          payout_id: Type.String({ format: 'uuid' }),
          status: StringEnum(PAYOUT_STATUSES),
          asset: Type.String(),
          amount: Type.String(),
          reason: Type.String(),
        },
        { additionalProperties: false, title: 'WaitingPayout' },
      ),
      { description: 'Payouts the worker holds back, and why' },
    ),
  },
  { additionalProperties: false, title: 'Wallet' },
);

export const WalletLimitParams = Type.Object({ asset: AssetParam }, { additionalProperties: false });

export const WalletLimitBody = Type.Object(
  {
    per_payout: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Largest amount of one payout, or "none"' }),
    ),
    per_day: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Sum of payouts signed per UTC day, or "none"' }),
    ),
    fee_limit: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Highest fee_limit of a TRC20 transfer in TRX, or "default" (100)',
      }),
    ),
  },
  { additionalProperties: false, title: 'HotWalletLimitRequest' },
);

export const WalletLimitSchema = Type.Object(
  {
    asset: Type.String(),
    per_payout: Nullable(Type.String(), 'null: no limit'),
    per_day: Nullable(Type.String(), 'null: no limit'),
    fee_limit: Type.String({ description: 'TRX' }),
    updated_at: Nullable(Time()),
    updated_by: Nullable(Type.String()),
  },
  { additionalProperties: false, title: 'HotWalletLimit' },
);

export const SweepBody = Type.Object(
  {
    address: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only this deposit address (every asset it holds); default: every address holding something',
      }),
    ),
  },
  { additionalProperties: false, title: 'SweepRequest' },
);

const SweepSchema = Type.Object(
  {
    sweep_id: Type.String(),
    address: Type.String(),
    asset: Type.String(),
    status: Type.String(),
    trigger: Type.String(),
    balance: Type.String(),
    amount: Nullable(Type.String()),
    fee_trx: Type.String(),
    top_up_trx: Type.String(),
    delegated_trx: Type.String(),
    last_error: Nullable(Type.String()),
    transactions: Type.Array(
      Type.Object(
        { step: Type.String(), txid: Type.String(), status: Type.String(), fee_trx: Nullable(Type.String()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'Sweep' },
);

export const SweepRequestSchema = Type.Object(
  {
    request_id: Type.String({ description: 'swr_…' }),
    status: Type.String({ description: 'pending until the running serve has carried it out, then done' }),
    address: Nullable(Type.String()),
    targets: Type.Array(
      Type.Object(
        {
          address: Type.String(),
          asset: Type.String(),
          state: StringEnum(['pending', 'done', 'empty', 'refused']),
          sweep: Nullable(SweepSchema, 'The sweep made for it, once there is one'),
        },
        { additionalProperties: false },
      ),
      { description: 'Filled in by the running serve when it takes the request' },
    ),
  },
  { additionalProperties: false, title: 'SweepRequestStatus' },
);

export const TRANSFER_KINDS = ['payout', 'sweep', 'restore_match', 'acknowledged', 'unknown'] as const;

export const HotWalletTransferSchema = Type.Object(
  {
    tx_hash: Type.String(),
    log_index: Type.Integer({ description: '-1 for a TRX transfer, else the token Transfer log’s index' }),
    block_number: Type.Integer(),
    block_time: Time(),
    asset: Type.String(),
    to_address: Type.String(),
    amount: Type.String({ description: 'In the asset’s units' }),
    kind: StringEnum(
      TRANSFER_KINDS,
      'payout: a payout paygate signed; sweep: a sweep’s fee top-up; restore_match: a payout found on the chain after a restore; acknowledged: paygate did not sign it and an operator said it was theirs; unknown: paygate did not sign it (the alert)',
    ),
    payout_id: Nullable(Type.String({ format: 'uuid' })),
    sweep_id: Nullable(Type.String()),
    acknowledged_by: Nullable(Type.String()),
    acknowledged_at: Nullable(Time()),
    acknowledge_reason: Nullable(Type.String()),
  },
  { additionalProperties: false, title: 'HotWalletTransfer' },
);

export const TransferListQuery = Type.Object(
  {
    unknown: Type.Optional(
      Type.Boolean({ description: 'Only the transfers paygate did not sign and nobody accounted for (the alert’s)' }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const TransferParams = Type.Object(
  { txid: Type.String({ pattern: '^(0x)?[0-9a-fA-F]{64}$', description: 'The transaction id' }) },
  { additionalProperties: false },
);

export const AcknowledgeBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'Why the transfer was the operator’s (kept in the audit log)',
    }),
  },
  { additionalProperties: false, title: 'TransferAcknowledgeRequest' },
);

export const AcknowledgedSchema = Type.Object(
  {
    tx_hash: Type.String(),
    acknowledged_by: Type.String(),
    acknowledged_at: Time(),
    reason: Type.String(),
    transfers: Type.Array(HotWalletTransferSchema, { description: 'Every transfer out of the transaction' }),
    note: Type.String({ description: 'What the acknowledgement changes' }),
  },
  { additionalProperties: false, title: 'AcknowledgedTransfer' },
);
