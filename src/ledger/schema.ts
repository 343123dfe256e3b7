/** The balances of a merchant as the operator console and the cabinet show them (`balanceView`). */
import { Type } from '@sinclair/typebox';
import { Uuid } from '../http/schemas.js';

export const BalancesSchema = Type.Object(
  {
    merchant_id: Uuid('The merchant'),
    balances: Type.Array(
      Type.Object(
        {
          asset: Type.String(),
          available: Type.String({ description: 'Usable by new payouts' }),
          reserved: Type.String({ description: 'Held by open payouts' }),
          total: Type.String({ description: 'available + reserved' }),
        },
        { additionalProperties: false, title: 'Balance' },
      ),
    ),
  },
  { additionalProperties: false, title: 'MerchantBalances' },
);
