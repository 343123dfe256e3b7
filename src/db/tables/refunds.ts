/** Row type of refunds (migration 0062), joined into DB in ../schema.ts. */

export type RefundStatus = 'awaiting_address' | 'requested' | 'sent' | 'failed' | 'canceled' | 'expired';

/**
 * Money back to the customer of an invoice (src/refunds): reserved at creation, paid by the payout
 * made when the customer gives an address, whose status it then follows.
 */
export interface RefundsTable {
  /** A random UUID: the claim link's only credential (122 random bits). */
  id: string;
  merchant_id: string;
  invoice_id: string;
  asset: string;
  decimals: number;
  /** Base units sent to the customer. */
  amount: string;
  /** The asset's payout fee at creation, fixed then; reserved with the amount. */
  fee_amount: string;
  fee_schedule_id: number | null;
  reason: string | null;
  /** The exception the refund answers; null when none. */
  exception_id: string | null;
  status: RefundStatus;
  /** The link the merchant sends the customer, fixed at creation (PAY_PUBLIC_URL/pay/refund/{id}). */
  claim_url: string;
  /** The customer's address, once given. */
  address: string | null;
  /** The payout made with the address (reference `refund-{id}`). */
  payout_id: string | null;
  created_by: string;
  created_at: string;
  expires_at: string;
  updated_at: string;
}

export interface RefundTables {
  refunds: RefundsTable;
}
