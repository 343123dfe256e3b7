// The page's view of an invoice, as GET /pay/v1/invoices/{invoice_id} answers it.
export type InvoiceStatus = 'created' | 'seen' | 'confirmed' | 'underpaid' | 'expired' | 'paid_late' | 'settled';

export interface PayView {
  invoice_id: string;
  merchant_name: string;
  description: string | null;
  price: string;
  price_currency: string;
  offered: { asset: string; amount: string }[];
  status: InvoiceStatus;
  asset: string | null;
  address: string | null;
  amount_expected: string | null;
  amount_received: string | null;
  expires_at: string;
  return_url: string | null;
  cancel_url: string | null;
  deposits: { tx_hash: string; amount: string; confirmations: number }[];
}
