/**
 * TypeBox schemas of what the cabinet shows beyond /v1's objects: the owner's invoice (sender
 * addresses, status history, a page invoice's terms) and payout (the reason it stopped), the webhook endpoint, the
 * whitelist, the account's sessions and the dashboard summary.
 */
import { Type } from '@sinclair/typebox';
import { ExceptionSchema } from '../exceptions/schema.js';
import { StringEnum } from '../http/schemas.js';
import { DepositSchema } from '../invoices/schema.js';
import { CabinetInvoiceSchema } from '../pay/schema.js';
import { PayoutSchema } from '../payouts/schema.js';
import { INVOICE_STATUSES } from '../webhooks/event-types.js';
import { StandaloneDepositSchema } from './schema.js';

const DateTime = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T, description: string) =>
  Type.Union([t, Type.Null()], { description });

export const OwnerDepositSchema = Type.Object(
  {
    ...DepositSchema.properties,
    from_address: Nullable(Type.String(), "The sender's address as the chain shows it; null when it was not recorded"),
  },
  { additionalProperties: false, title: 'OwnerDeposit' },
);

export const StatusStepSchema = Type.Object(
  {
    status: StringEnum(INVOICE_STATUSES),
    at: DateTime('When the invoice entered this status'),
    derived: Type.Boolean({
      description:
        'false: recorded when the status changed. true: the invoice predates the recorded history (the step is its creation time, or its last change for the current status), or it is a page invoice awaiting the choice (its creation, and its term when it ran out)',
    }),
  },
  { additionalProperties: false, title: 'InvoiceStatusStep' },
);

export const OwnerInvoiceSchema = Type.Object(
  {
    ...CabinetInvoiceSchema.properties,
    deposits: Type.Array(OwnerDepositSchema),
    status_history: Type.Array(StatusStepSchema, { description: 'Every status the invoice entered, oldest first' }),
    exceptions: Type.Optional(
      Type.Array(ExceptionSchema, {
        description: 'One invoice read only: its exceptions, open and resolved, oldest first',
      }),
    ),
    foreign_deposits: Type.Optional(
      Type.Array(StandaloneDepositSchema, {
        description:
          'One invoice read only: deposits of another asset to its address (credited as standalone deposits)',
      }),
    ),
  },
  { additionalProperties: false, title: 'OwnerInvoice' },
);

export const OwnerPayoutSchema = Type.Object(
  {
    ...PayoutSchema.properties,
    reject_reason: Nullable(Type.String(), "The operator's reason, for a rejected payout; else null"),
    fail_reason: Nullable(Type.String(), "The chain's verdict on a failed payout's transaction; else null"),
    hold_reason: Nullable(
      Type.String(),
      'Why the payout is held and will not be sent until the operator decides (after a restore); else null',
    ),
  },
  { additionalProperties: false, title: 'OwnerPayout' },
);
