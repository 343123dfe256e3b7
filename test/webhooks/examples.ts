/** Example event bodies for docs/webhooks.md, built with the API's own view functions. */
import type { InvoicesTable, PayoutsTable } from '../../src/db/schema.js';
import { invoiceView } from '../../src/invoices/view.js';
import type { DepositView } from '../../src/invoices/schema.js';
import { payoutView } from '../../src/payouts/view.js';
import { NOT_SIGNED } from '../../src/payouts/store.js';
import { eventBody } from '../../src/webhooks/dispatcher.js';
import { EVENT_TYPES, INVOICE_STATUSES, type EventType } from '../../src/webhooks/event-types.js';

const invoice: InvoicesTable = {
  id: '0b9c6f1e-4d1a-4c62-9a57-3f3e2d8c1a01',
  merchant_id: 'm',
  order_id: 'order-1042',
  status: 'created',
  asset: 'USDT_TRON',
  network: 'tron',
  decimals: 6,
  address: 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
  address_index: 1,
  external_user_id: null,
  amount_requested: '25000000',
  amount_expected: '25000000',
  amount_received: '0',
  amount_credited: '0',
  service_fee_payer: 'merchant',
  service_fee_percent: '1',
  service_fee_fixed: '0',
  service_fee_amount: '250000',
  return_url: null,
  cancel_url: null,
  checkout_url: null,
  expires_at: '2026-11-22T12:15:00.000Z',
  created_at: '2026-11-22T12:00:00.000Z',
  updated_at: '2026-11-22T12:00:00.000Z',
};

const deposit = (status: 'seen' | 'confirmed', late = false): DepositView => ({
  tx_hash: '4c8b2a5d0e7f13a9b6c2d4e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7',
  amount: '25',
  confirmations: status === 'seen' ? 1 : 19,
  status,
  block_time: late ? '2026-11-22T12:20:03.000Z' : '2026-11-22T12:03:12.000Z',
  late,
});

const INVOICE_STATE: Record<
  (typeof INVOICE_STATUSES)[number],
  { received: string; credited: string; deposits: DepositView[] }
> = {
  created: { received: '0', credited: '0', deposits: [] },
  seen: { received: '25000000', credited: '0', deposits: [deposit('seen')] },
  confirmed: { received: '25000000', credited: '0', deposits: [deposit('confirmed')] },
  underpaid: { received: '20000000', credited: '19750000', deposits: [{ ...deposit('confirmed'), amount: '20' }] },
  expired: { received: '0', credited: '0', deposits: [] },
  paid_late: { received: '25000000', credited: '24750000', deposits: [deposit('confirmed', true)] },
  settled: { received: '25000000', credited: '24750000', deposits: [deposit('confirmed')] },
};

const payout: PayoutsTable = {
  ...NOT_SIGNED,
  id: '7d2e4f60-93b1-4e0a-b8c5-1f2a3b4c5d6e',
  merchant_id: 'm',
  reference: 'withdrawal-311',
  status: 'pending_review',
  asset: 'USDT_TRON',
  network: 'tron',
  decimals: 6,
  to_address: 'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx',
  amount: '100000000',
  fee_amount: '1500000',
  fee_charged: '0',
  fee_schedule_id: null,
  review_reasons: '["first_payout_to_address"]',
  tx_hash: null,
  reviewed_by: null,
  reviewed_at: null,
  reject_reason: null,
  created_at: '2026-11-22T12:00:00.000Z',
  updated_at: '2026-11-22T12:00:00.000Z',
};

function data(type: EventType): unknown {
  const [resource, status] = type.split('.') as [string, string];
  if (resource === 'invoice') {
    const s = INVOICE_STATE[status as keyof typeof INVOICE_STATE];
    return invoiceView(
      {
        ...invoice,
        status: status as InvoicesTable['status'],
        amount_received: s.received,
        amount_credited: s.credited,
        updated_at: '2026-11-22T12:05:00.000Z',
      },
      s.deposits,
    );
  }
  if (resource === 'deposit') {
    // In the order of deposits/view.ts standaloneDepositView, deposit_id included.
    return {
      deposit_id: '01936f2a-5c4e-7b21-9d3a-6e8f0a1b2c3d',
      ...deposit(status as 'seen' | 'confirmed'),
      amount: '40',
      address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
      asset: 'USDT_TRON',
      external_user_id: 'user-77',
    };
  }
  const sent = ['broadcast', 'confirmed'].includes(status);
  return payoutView({
    ...payout,
    status: status as PayoutsTable['status'],
    tx_hash: sent ? 'a1f3c5e7091b2d4f6a8c0e2f4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c' : null,
    fee_charged: status === 'confirmed' ? '1500000' : '0',
    updated_at: '2026-11-22T12:05:00.000Z',
  });
}

/** The body exactly as the dispatcher sends it (compact), and pretty-printed for the docs. */
export function exampleBody(type: EventType): string {
  return eventBody({
    id: 'evt_5f0c2a9e8b7d6c5b4a392817',
    type,
    created_at: '2026-11-22T12:05:00.000Z',
    data: JSON.stringify(data(type)),
  });
}

export function exampleSection(): string {
  return EVENT_TYPES.map(
    (t) => `### \`${t}\`\n\n\`\`\`json\n${JSON.stringify(JSON.parse(exampleBody(t)), null, 2)}\n\`\`\`\n`,
  ).join('\n');
}
