/** Console schemas of a merchant's money: `fee service`, `whitelist add|remove|list`, `ledger credit|debit`. */
import { Type } from '@sinclair/typebox';
import { PrintableId, StringEnum } from '../../http/schemas.js';
import { Amount, AssetParam, MerchantParams, Nullable, Time, Uuid } from './common.js';

const Confirm = (description: string) => Type.Optional(Type.Boolean({ description }));
const ValidFrom = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'ISO 8601 moment with a zone when it starts (default: now); must not be past',
  }),
);

export const ServiceFeeBody = Type.Object(
  {
    percent: Type.String({ minLength: 1, maxLength: 30, description: 'Percent, e.g. "1.5" (at most 6 decimals)' }),
    payer: StringEnum(['merchant', 'customer'], 'Who pays the fee'),
    valid_from: ValidFrom,
    confirm_high_rate: Confirm('Confirms a rate above 3 percent'),
  },
  { additionalProperties: false, title: 'ServiceFeeRequest' },
);

export const ServiceFeeSchema = Type.Object(
  {
    merchant_id: Uuid('The merchant'),
    percent: Type.String(),
    payer: StringEnum(['merchant', 'customer']),
    valid_from: Time(),
  },
  { additionalProperties: false, title: 'ServiceFee' },
);

export const WhitelistEntrySchema = Type.Object(
  {
    entry_id: Uuid('The entry'),
    merchant_id: Uuid('The merchant'),
    asset: Type.String(),
    address: Type.String(),
    usable_from: Time('When payouts to it may start (the delay before first use)'),
    usable: Type.Boolean({ description: 'Whether the delay has passed at the moment of the answer' }),
    created_at: Time(),
    created_by: Type.String({ description: 'The actor that added it (CLI user or operator token id)' }),
    removed_at: Nullable(Time()),
    removed_by: Nullable(Type.String()),
  },
  { additionalProperties: false, title: 'WhitelistEntry' },
);

export const WhitelistQuery = Type.Object(
  {
    asset: Type.Optional(AssetParam),
    include_removed: Type.Optional(Type.Boolean({ description: 'Also removed entries (default false)' })),
  },
  { additionalProperties: false },
);

export const AddWhitelistBody = Type.Object(
  {
    asset: AssetParam,
    address: Type.String({ minLength: 1, maxLength: 100, description: 'TRON base58 address (checksum verified)' }),
    delay: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: 'Delay before first use: 500ms, 30s, 15m, 24h, 7d or plain seconds (default 24h, at most 90d)',
      }),
    ),
  },
  { additionalProperties: false, title: 'AddWhitelistEntryRequest' },
);

export const AddWhitelistSchema = Type.Object(
  {
    entry: WhitelistEntrySchema,
    created: Type.Boolean({ description: 'false: the address was already on the whitelist' }),
    delay_extended: Type.Boolean({
      description:
        'true: the address was already listed and the longer `delay` moved its first use later (counted from when it was added); false: a new entry, or one left unchanged',
    }),
  },
  { additionalProperties: false, title: 'WhitelistAddResult' },
);

export const WhitelistEntryParams = Type.Object(
  {
    ...MerchantParams.properties,
    asset: AssetParam,
    address: Type.String({ minLength: 1, maxLength: 100, description: 'TRON base58 address' }),
  },
  { additionalProperties: false },
);

export const LedgerEntryBody = Type.Object(
  {
    kind: StringEnum(['credit', 'debit'], 'credit adds to the balance; debit takes from the available balance'),
    asset: AssetParam,
    amount: Amount('Amount in the asset, greater than zero'),
    memo: Type.String({ minLength: 1, maxLength: 500, description: 'Why (kept in the entry and the audit log)' }),
    reference: Type.Optional(
      PrintableId(
        'Your reference for this correction (a ticket id): a repeat with the same reference and amount answers the entry already booked (200); with another amount it is reference_conflict',
      ),
    ),
  },
  { additionalProperties: false, title: 'LedgerEntryRequest' },
);

export const LedgerEntrySchema = Type.Object(
  {
    entry_id: Type.Integer(),
    merchant_id: Uuid('The merchant'),
    asset: Type.String(),
    amount: Type.String(),
    memo: Type.String(),
    reference: Nullable(Type.String()),
    replayed: Type.Boolean({ description: 'true: the reference was already booked; this is that entry' }),
    balance: Type.Object(
      {
        asset: Type.String(),
        available: Type.String(),
        reserved: Type.String(),
        total: Type.String(),
      },
      { additionalProperties: false, description: 'The balance right after this entry' },
    ),
    created_at: Time(),
  },
  { additionalProperties: false, title: 'LedgerEntry' },
);
