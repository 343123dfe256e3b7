// The records the page shows, as the served OpenAPI document describes them.
import type { Answer } from './api';
import type { Child } from '../../shared/dom';

export type Account = Answer<'get', '/cabinet/v1/account'>;
export type AccountMerchant = Account['merchants'][number];
export type Merchant = Answer<'get', '/cabinet/v1/merchants/{merchant_id}'>;
export type InvoicePage = Answer<'get', '/cabinet/v1/merchants/{merchant_id}/invoices'>;
export type InvoiceItem = InvoicePage['data'][number];
export type Invoice = Answer<'get', '/cabinet/v1/merchants/{merchant_id}/invoices/{invoice_id}'>;
export type PayoutPage = Answer<'get', '/cabinet/v1/merchants/{merchant_id}/payouts'>;
export type PayoutItem = PayoutPage['data'][number];
export type Payout = Answer<'get', '/cabinet/v1/merchants/{merchant_id}/payouts/{payout_id}'>;
export type ExceptionPage = Answer<'get', '/cabinet/v1/merchants/{merchant_id}/exceptions'>;
export type ExceptionItem = ExceptionPage['data'][number];
export type DeliveryPage = Answer<'get', '/cabinet/v1/merchants/{merchant_id}/deliveries'>;
export type Delivery = Answer<'get', '/cabinet/v1/merchants/{merchant_id}/deliveries/{delivery_id}'>;

/** What the account's own view gets: no merchant, only the page's services. */
export interface AccountContext {
  show(title: string, ...content: Child[]): HTMLElement | null;
  reloadAccount(): Promise<void>;
}

/** What a view gets: the merchant, the route's id and query, and the page's services. */
export interface ViewContext extends AccountContext {
  merchant: AccountMerchant;
  merchantId: string;
  id: string | undefined;
  query: Record<string, string>;
  account: Account;
  /** `{ merchant_id }`, the path parameters of every merchant route. */
  params: { merchant_id: string };
  /** Puts the view's heading and content in place (nothing when the reader has moved on). */
  show(title: string, ...content: Child[]): HTMLElement | null;
  /** Refreshes the open view until the reader goes elsewhere. */
  poll(fn: () => Promise<void>): void;
  /** The account again (after a change of a merchant's switches). */
  reloadAccount(): Promise<void>;
}
