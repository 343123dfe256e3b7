/**
 * Row types of every table, as SQLite stores them. Timestamps are ISO 8601 UTC text; money is
 * TEXT holding an integer count of base units (USDD has 18 decimals, past SQLite's INTEGER range),
 * converted to bigint in the stores. Booleans are INTEGER 0/1.
 */
import type { Generated } from 'kysely';
import type { AccountingTables } from './tables/accounting.js';
import type { CabinetTables } from './tables/cabinet.js';
import type { DerivationGapTables } from './tables/derivation-gaps.js';
import type { ExceptionTables } from './tables/exceptions.js';
import type { HotWalletTables } from './tables/hot-wallet.js';
import type { MailTables } from './tables/mail.js';
import type { OperatorTokenTables } from './tables/operator-tokens.js';
import type { PayoutWorkerTables } from './tables/payout-worker.js';
import type { RefundTables } from './tables/refunds.js';
import type { SweeperTables } from './tables/sweeper.js';
import type { WatcherTables } from './tables/watcher.js';
import type { WebhookTables } from './tables/webhooks.js';

export type AddressMode = 'per_invoice' | 'per_user';
export type MerchantApproval = 'pending' | 'approved' | 'rejected';

export interface MerchantsTable {
  id: string;
  name: string;
  address_mode: AddressMode;
  approval: MerchantApproval;
  /**
   * The operator's switch (`merchant enable|disable`). The merchant accepts requests only when this
   * and `owner_enabled` are both 1 (src/merchants/switches.ts).
   */
  enabled: number;
  /** The owner's switch (the cabinet's `PATCH {enabled}`), migration 0051. */
  owner_enabled: number;
  site_url: string | null;
  return_url: string | null;
  cancel_url: string | null;
  /** 'customer' for a project still on the legacy setting; null otherwise. */
  legacy_network_fee_payer: string | null;
  /** Confirmations policy; null means the CONFIRMATIONS default. */
  confirmations: number | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  key_id: string;
  merchant_id: string;
  /** argon2id encoded hash of the secret part; the clear key is never stored. */
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
  /** The operator's name for the key (migration 0050); null: none. */
  label: string | null;
  /** From this moment the key is refused (401); null: it does not expire. */
  expires_at: string | null;
  /** JSON array of the CIDRs requests may come from (normalised); null: any client address. */
  allowed_networks: string | null;
  /** The last authenticated request, written at most once a minute per key. */
  last_used_at: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  /**
   * Who acted: `cli:<user>` for a CLI command (the operating-system user), the token id (16 hex)
   * for a change through the operator console, or `system`.
   */
  actor: string;
  action: string;
  subject_type: string;
  subject_id: string;
  merchant_id: string | null;
  /** JSON object with the parameters of the action (never secrets). */
  details: string;
}

export interface EventsTable {
  seq: Generated<number>;
  /** evt_… identifier sent to receivers as the event `id`. */
  id: string;
  merchant_id: string;
  /** `invoice.<status>`, `deposit.seen`, `deposit.confirmed`, `payout.<status>`. */
  type: string;
  /** The invoice, deposit or payout the event is about. */
  subject_id: string;
  /** JSON of the resource as the API shows it at the moment of the change. */
  data: string;
  created_at: string;
  /** Unique per state transition (e.g. `invoice:<id>:seen:<n>`), so a replay cannot emit twice. */
  dedupe_key: Generated<string | null>;
  /** The event's number among its merchant's events (migration 0034); null for older events. */
  merchant_seq: Generated<number | null>;
}

/** The wallet's public half (one row): the seed stays in the encrypted keystore file. */
export interface WalletTable {
  id: number;
  /** Extended public key of m/44'/195'/0'/0; deposit address i is its child i. */
  deposit_xpub: string;
  deposit_path: string;
  hot_address: string;
  hot_path: string;
  /** Next deposit derivation index to hand out; only grows. */
  next_index: number;
  created_at: string;
}

export interface DepositAddressesTable {
  address: string;
  derivation_index: number;
  merchant_id: string;
  /** Set for a permanent per_user address; null for a per-invoice address. */
  external_user_id: string | null;
  created_at: string;
}

/** Operator deviations from the asset catalog; null keeps the catalog default. */
export interface AssetSwitchesTable {
  asset: string;
  payments_enabled: number | null;
  payouts_enabled: number | null;
  updated_at: string;
}

export interface MerchantAssetSwitchesTable {
  merchant_id: string;
  asset: string;
  payments_enabled: number;
  updated_at: string;
}

export type FeeKind = 'service' | 'invoice' | 'payout';
export type FeePayer = 'merchant' | 'customer';

/** Dated fee rows, never updated: the row in force is the latest valid_from not after the moment. */
export interface FeeSchedulesTable {
  id: Generated<number>;
  kind: FeeKind;
  merchant_id: string | null;
  asset: string | null;
  /** Percent text ("1.5"), for service and payout fees. */
  percent: string | null;
  /** Fixed amount in base units of `asset`. */
  amount: string | null;
  payer: FeePayer | null;
  valid_from: string;
  created_at: string;
  actor: string;
}

export type InvoiceStatus = 'created' | 'seen' | 'confirmed' | 'underpaid' | 'expired' | 'paid_late' | 'settled';

export interface InvoicesTable {
  id: string;
  merchant_id: string;
  order_id: string;
  status: InvoiceStatus;
  asset: string;
  network: string;
  /** The asset's decimals when the invoice was created (amounts below are base units of it). */
  decimals: number;
  address: string;
  /** The derivation index of `address`: the watcher's way to an address's invoices (migration 0040). */
  address_index: number;
  external_user_id: string | null;
  amount_requested: string;
  amount_expected: string;
  amount_received: string;
  amount_credited: string;
  service_fee_payer: FeePayer;
  service_fee_percent: string;
  /** The fixed receiving amount included in service_fee_amount. */
  service_fee_fixed: string;
  service_fee_amount: string;
  return_url: string | null;
  cancel_url: string | null;
  /** The payment page's link of an invoice made from a page invoice; null for /v1 ones (migration 0053). */
  checkout_url: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/**
 * An invoice priced in dollars whose customer picks the token (migration 0053). The choice
 * (`asset`, `chosen_at`) inserts its `invoices` row under the same id.
 */
export interface PageInvoicesTable {
  id: string;
  merchant_id: string;
  order_id: string;
  /** Canonical decimal text of the price in dollars. */
  price: string;
  /** JSON array of the offered asset codes, in catalog order. */
  currencies: string;
  /** JSON array of the codes the merchant listed (sorted), or null when it listed none. */
  currencies_requested: string | null;
  description: string | null;
  external_user_id: string | null;
  return_url: string | null;
  cancel_url: string | null;
  checkout_url: string;
  expires_at: string;
  created_at: string;
  asset: string | null;
  chosen_at: string | null;
}

// Ledger, whitelist, payouts.

export type LedgerKind = 'credit' | 'debit' | 'reserve' | 'release';

/** Append-only; see migration 0010. Amounts and running totals are TEXT base units. */
export interface LedgerEntriesTable {
  id: Generated<number>;
  merchant_id: string;
  asset: string;
  seq: number;
  kind: LedgerKind;
  amount: string;
  /** credits − debits after this entry. */
  balance_after: string;
  /** reservations − releases after this entry. */
  reserved_after: string;
  payout_id: string | null;
  /** What the entry books from outside the payout flow (deposit:<tx>:<log>); unique when set. */
  source_ref: string | null;
  memo: string | null;
  actor: string;
  created_at: string;
}

export interface WhitelistEntriesTable {
  id: string;
  merchant_id: string;
  asset: string;
  address: string;
  usable_from: string;
  created_at: string;
  created_by: string;
  removed_at: string | null;
  removed_by: string | null;
}

export type PayoutStatus =
  'pending_review' | 'approved' | 'queued' | 'signing' | 'broadcast' | 'confirmed' | 'rejected' | 'failed';

export interface PayoutsTable {
  id: string;
  merchant_id: string;
  reference: string;
  status: PayoutStatus;
  asset: string;
  network: string;
  decimals: number;
  to_address: string;
  amount: string;
  /** The payout fee in force at creation (fixed + percent of amount, rounded up). */
  fee_amount: string;
  /** What has been debited as fee: "0" until confirmed. */
  fee_charged: string;
  fee_schedule_id: number | null;
  /** JSON array of review reasons. */
  review_reasons: string;
  tx_hash: string | null;
  reviewed_by: string | null;
  reviewed_at: string | null;
  reject_reason: string | null;
  created_at: string;
  updated_at: string;
  // Payout worker (migration 0033).
  /** The signed transaction JSON, stored before its first broadcast; null before signing. */
  signed_tx: string | null;
  /** raw_data.expiration of signed_tx (ms, chain time). */
  tx_expiration: number | null;
  /** How many times the payout was signed (a re-sign follows a provably expired transaction). */
  sign_attempts: number;
  first_signed_at: string | null;
  /** fee_limit (sun) of a TRC20 transfer. */
  fee_limit: string | null;
  /** Why a queued payout waits (hot wallet short, limit reached…); null when it does not. */
  wait_reason: string | null;
  /** TRX (sun) the network burned for the transaction, from its receipt. */
  network_fee: string | null;
  /** Receipt result of a failed payout (REVERT, OUT_OF_ENERGY…). */
  fail_reason: string | null;
  /** Why the worker must not sign it until the operator approves or cancels it (set at restore, migration 0045). */
  hold_reason: string | null;
  /** The unknown transfer out whose asset, address and amount held the payout at creation (migration 0065). */
  hold_tx_hash: string | null;
}

export interface PayoutHaltsTable {
  /** '*' for every asset, else an asset code. */
  scope: string;
  requests: number;
  worker: number;
  updated_at: string;
  updated_by: string;
}

export interface MerchantPayoutLimitsTable {
  merchant_id: string;
  auto_approve_limit: string | null;
  daily_limit: string | null;
  updated_at: string;
}

// The worker lease and deposits (migration 0030); each feature's own tables in tables/.

export interface WorkerLeaseTable {
  id: number;
  holder: string;
  token: number;
  acquired_at: string;
  renewed_at: string;
  expires_at: string;
}

export type DepositStatus = 'seen' | 'confirmed' | 'orphaned';

/** The customer's address for a page invoice's receipt, with the page's language (0059). */
export interface ReceiptEmailsTable {
  invoice_id: string;
  email: string;
  /** One of the page's languages (en, es, pt-BR, ru, tr, zh-CN, vi, id). */
  language: string;
  created_at: string;
  updated_at: string;
}

export interface DepositsTable {
  id: string;
  merchant_id: string;
  address: string;
  asset: string;
  decimals: number;
  /** Base units of `asset`. */
  amount: string;
  tx_hash: string;
  /** Position of the TRC20 Transfer log in its transaction; -1 for a native TRX transfer. */
  log_index: number;
  from_address: string | null;
  block_number: number;
  block_hash: string;
  block_time: string;
  /** The invoice it pays; null for a standalone deposit (permanent address, other asset). */
  invoice_id: string | null;
  external_user_id: string | null;
  /** 1 when the block time is after the invoice's expires_at. */
  late: number;
  /** seen → confirmed (merchant's confirmations policy); orphaned when its block left the chain. */
  status: DepositStatus;
  confirmations: number;
  /** 1 once its block is at or below the solid (irreversible) height. */
  final: number;
  /** When its credit was booked to the ledger (source_ref deposit:<tx_hash>:<log_index>). */
  credited_at: string | null;
  /** Base units booked for it (0 when the invoice's fee absorbed it); null until credited (0031). */
  credited_amount: string | null;
  /** Standalone deposits: the service fee taken from it; null for invoice deposits (0031). */
  fee_amount: string | null;
  created_at: string;
  updated_at: string;
}

/** Rows by status of invoices, deposits and payouts, kept by triggers (migration 0039). */
export interface StatusCountsTable {
  table_name: 'invoices' | 'deposits' | 'payouts';
  status: string;
  n: number;
}

export interface DB
  extends
    WatcherTables,
    SweeperTables,
    PayoutWorkerTables,
    WebhookTables,
    DerivationGapTables,
    OperatorTokenTables,
    AccountingTables,
    CabinetTables,
    HotWalletTables,
    ExceptionTables,
    RefundTables,
    MailTables {
  worker_lease: WorkerLeaseTable;
  deposits: DepositsTable;
  events: EventsTable;
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  wallet: WalletTable;
  deposit_addresses: DepositAddressesTable;
  asset_switches: AssetSwitchesTable;
  merchant_asset_switches: MerchantAssetSwitchesTable;
  fee_schedules: FeeSchedulesTable;
  invoices: InvoicesTable;
  page_invoices: PageInvoicesTable;
  receipt_emails: ReceiptEmailsTable;
  ledger_entries: LedgerEntriesTable;
  whitelist_entries: WhitelistEntriesTable;
  payouts: PayoutsTable;
  payout_halts: PayoutHaltsTable;
  merchant_payout_limits: MerchantPayoutLimitsTable;
  status_counts: StatusCountsTable;
}
