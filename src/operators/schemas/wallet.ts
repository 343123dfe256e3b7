/** Console schemas of the wallet: the fields of `wallet show|limit --json` and `sweep --json`. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { PAYOUT_STATUSES } from '../../payouts/schema.js';
import { AssetParam, Nullable, Time } from './common.js';

export const WalletSchema = Type.Object(
  {
    hot_address: Type.String(),
    hot_path: Type.String(),
    deposit_xpub: Type.String({ description: 'Extended public key of the deposit account (never the seed)' }),
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
