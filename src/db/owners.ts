/**
 * Which folder of src/ owns each table: only that folder's files query it; another folder calls
 * the owner's service or store functions, or reads through a read model named as such
 * (`read-model.ts`, `*-read-model.ts`) that never writes. `npm run check:tables`
 * (scripts/check-table-owners.ts) holds the code to it; typed on the schema, so a new table
 * cannot be left without an owner.
 */
import type { DB } from './schema.js';

export const TABLE_OWNERS: Readonly<Record<keyof DB, string>> = {
  // runtime
  worker_lease: 'runtime',
  // merchants, keys, assets, fees, audit
  merchants: 'merchants',
  api_keys: 'keys',
  asset_switches: 'assets',
  merchant_asset_switches: 'assets',
  fee_schedules: 'fees',
  audit_log: 'audit',
  // invoices and their money
  invoices: 'invoices',
  page_invoices: 'pay',
  receipt_emails: 'pay',
  deposits: 'deposits',
  deposit_addresses: 'addresses',
  wallet: 'wallet',
  ledger_entries: 'ledger',
  status_counts: 'operations',
  exceptions: 'exceptions',
  refunds: 'refunds',
  reserve_checks: 'reserves',
  // payouts
  payouts: 'payouts',
  payout_halts: 'payouts',
  merchant_payout_limits: 'payouts',
  hot_wallet_limits: 'payouts',
  whitelist_entries: 'whitelist',
  // the chain
  chain_identity: 'chain',
  chain_cursor: 'watcher',
  scanned_blocks: 'watcher',
  watcher_stop: 'watcher',
  hot_wallet_transfers: 'watcher',
  hot_wallet_acknowledgements: 'wallet',
  sweeps: 'sweeper',
  sweep_txs: 'sweeper',
  sweep_marks: 'sweeper',
  sweep_requests: 'sweeper',
  sweep_thresholds: 'sweeper',
  // the restore
  restore_reading: 'restore',
  derivation_gaps: 'restore',
  unattributed_addresses: 'restore',
  unattributed_deposits: 'restore',
  // webhooks
  events: 'webhooks',
  merchant_event_sequences: 'webhooks',
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_attempts: 'webhooks',
  // operators and owners
  operator_tokens: 'operators',
  owners: 'owners',
  owner_merchants: 'owners',
  owner_setup_tokens: 'owners',
  owner_sessions: 'owners',
  owner_recovery_codes: 'owners',
  // mail
  mail_outbox: 'mail',
  owner_notifications: 'mail',
};
