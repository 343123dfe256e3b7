/** The exceptions' route schemas, shared by the cabinet and the console (validation, types and OpenAPI at once). */
import { Type } from '@sinclair/typebox';
import { PageQuery } from '../http/pagination.js';
import { StringEnum, Uuid } from '../http/schemas.js';
import { EXCEPTION_KINDS } from '../db/tables/exceptions.js';
import { NOTE_MAX, OWNER_KINDS } from './service.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T, description: string) =>
  Type.Union([t, Type.Null()], { description });

export const ExceptionSchema = Type.Object(
  {
    exception_id: Uuid(),
    kind: StringEnum(
      EXCEPTION_KINDS,
      'underpaid: the shortfall; overpaid: the excess; paid_late: the late amount; foreign_asset: a deposit of another asset to an open invoice; unattributed and payout_held: the operator only',
    ),
    merchant_id: Nullable(Type.String(), 'Null for unattributed'),
    invoice_id: Nullable(Type.String(), 'The invoice, where one applies'),
    payout_id: Nullable(Type.String(), 'The held payout (payout_held)'),
    deposit_id: Nullable(Type.String(), 'The deposit (foreign_asset: the first one; unattributed)'),
    asset: Type.String(),
    amount: Type.String({
      description: 'In the asset’s units: the shortfall, the excess, the late amount or the deposits’ amount',
    }),
    created_at: Type.String({ format: 'date-time' }),
    resolved_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    resolution: Type.Union([
      Type.Object(
        {
          note: Type.String(),
          by: Type.String({ description: 'The owner account id, operator token id, cli:<user> or system' }),
          refund_id: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false, title: 'Exception' },
);

const open = Type.Optional(StringEnum(['true', 'false'] as const, 'true: only open ones; false: only resolved ones'));

export const OwnerExceptionListQuery = Type.Object(
  { open, kind: Type.Optional(StringEnum(OWNER_KINDS)), ...PageQuery },
  { additionalProperties: false },
);

export const ExceptionListQuery = Type.Object(
  {
    merchant_id: Type.Optional(Uuid('Only this merchant’s')),
    kind: Type.Optional(StringEnum(EXCEPTION_KINDS)),
    open,
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const ResolveBody = Type.Object(
  { note: Type.String({ minLength: 1, maxLength: NOTE_MAX, description: 'What was done about it' }) },
  { additionalProperties: false },
);

export const ExceptionParams = Type.Object({ exception_id: Uuid('The exception') }, { additionalProperties: false });

export const OwnerExceptionParams = Type.Object(
  { merchant_id: Uuid('The merchant'), exception_id: Uuid('The exception') },
  { additionalProperties: false },
);
