/** Console schemas of the accounting routes: the fields of `reserves --json`. */
import { Type } from '@sinclair/typebox';
import { Amount, Time } from './common.js';

const Parts = <K extends string>(names: readonly K[], title: string) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Amount(n)])) as Record<K, ReturnType<typeof Amount>>, {
    additionalProperties: false,
    title,
  });

export const AssetReservesSchema = Type.Object(
  {
    asset: Type.String({ description: 'Asset code, e.g. USDT_TRON' }),
    holdings: Parts(
      ['hot_wallet', 'hot_wallet_staked', 'deposit_addresses', 'unattributed_addresses', 'total'],
      'ReserveHoldings',
    ),
    liabilities: Parts(
      ['merchant_balances', 'uncredited_deposits', 'unattributed_deposits', 'total'],
      'ReserveLiabilities',
    ),
    earned: Parts(['receive_fees', 'payout_fees', 'network_costs', 'total'], 'ReserveEarnings'),
    in_flight_payouts: Amount('Payouts signing or broadcast: their amounts may have left already'),
    expected: Amount('liabilities.total + earned.total'),
    difference: Amount('holdings.total − expected; below 0 money is missing'),
    uncovered: Amount('What of the liabilities the holdings do not cover; "0" when covered'),
    covered: Type.Boolean(),
  },
  { additionalProperties: false, title: 'AssetReserves' },
);

export const ReservesSchema = Type.Object(
  {
    checked_at: Time(),
    hot_wallet: Type.String({ description: 'The hot wallet address' }),
    addresses_read: Type.Integer({ description: 'Deposit address balances read from the node' }),
    covered: Type.Boolean({ description: 'Every asset covered' }),
    assets: Type.Array(AssetReservesSchema),
  },
  { additionalProperties: false, title: 'Reserves' },
);
