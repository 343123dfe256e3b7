/** Console schemas of assets: `asset list|set`, `fee payout`, `fee invoice`. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.js';
import { Amount, AssetParam, Nullable, Time } from './common.js';

export const AssetSchema = Type.Object(
  {
    asset: Type.String({ description: 'Asset code, e.g. USDT_TRON' }),
    symbol: Type.String(),
    name: Type.String(),
    network: Type.Literal('tron'),
    type: StringEnum(['trc20', 'native']),
    contract: Nullable(Type.String(), 'The TRC20 contract; null for TRX'),
    decimals: Type.Integer(),
    minimum_deposit: Type.String(),
    payments: Type.Boolean({ description: 'Receiving in force (catalog default or the operator switch)' }),
    payouts: Type.Boolean({ description: 'Payouts in force' }),
    receive_only: Type.Boolean(),
    locked: Type.Array(StringEnum(['payments', 'payouts']), {
      description: 'Switches the catalog does not let the operator change',
    }),
  },
  { additionalProperties: false, title: 'Asset' },
);

export const AssetDetailsSchema = Type.Object(
  {
    ...AssetSchema.properties,
    sweep_threshold: Type.String({
      description: 'A deposit address is swept automatically once it holds at least this much',
    }),
  },
  { additionalProperties: false, title: 'AssetDetails' },
);

export const AssetParams = Type.Object({ asset: AssetParam }, { additionalProperties: false });

export const UpdateAssetBody = Type.Object(
  {
    payments: Type.Optional(Type.Boolean({ description: 'Receiving in this asset, for every merchant' })),
    payouts: Type.Optional(Type.Boolean({ description: 'Payouts in this asset, for every merchant' })),
    sweep_threshold: Type.Optional(
      Amount('Sweep a deposit address once it holds at least this much (0: any amount worth its cost)'),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'UpdateAssetRequest' },
);

const ValidFrom = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'ISO 8601 moment with a zone when it starts (default: now); must not be past',
  }),
);
const Confirm = (description: string) => Type.Optional(Type.Boolean({ description }));

export const PayoutFeeBody = Type.Object(
  {
    amount: Amount('Fixed part in the asset ("0" for none)'),
    percent: Type.String({ minLength: 1, maxLength: 30, description: 'Percent of the payout amount ("0" for none)' }),
    valid_from: ValidFrom,
    confirm_high_amount: Confirm('Confirms a fixed part above 5 units of the asset'),
    confirm_high_rate: Confirm('Confirms a percent above 3'),
  },
  { additionalProperties: false, title: 'PayoutFeeRequest' },
);

export const PayoutFeeSchema = Type.Object(
  { asset: Type.String(), amount: Type.String(), percent: Type.String(), valid_from: Time() },
  { additionalProperties: false, title: 'PayoutFee' },
);

export const InvoiceFeeBody = Type.Object(
  {
    amount: Amount('Amount in the asset added to the service fee of every new invoice ("0" removes it)'),
    valid_from: ValidFrom,
    confirm_high_amount: Confirm('Confirms an amount above 5 units of the asset'),
  },
  { additionalProperties: false, title: 'InvoiceFeeRequest' },
);

export const InvoiceFeeSchema = Type.Object(
  { asset: Type.String(), amount: Type.String(), valid_from: Time() },
  { additionalProperties: false, title: 'InvoiceFee' },
);
