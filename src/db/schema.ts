/**
 * Row types of every table, as SQLite stores them. Timestamps are ISO 8601 UTC text; money is
 * TEXT holding an integer count of base units (USDD has 18 decimals, past SQLite's INTEGER range),
 * converted to bigint in the stores. Booleans are INTEGER 0/1.
 */
import type { Generated } from 'kysely';

export type AddressMode = 'per_invoice' | 'per_user';
export type MerchantApproval = 'pending' | 'approved' | 'rejected';

export interface MerchantsTable {
  id: string;
  name: string;
  address_mode: AddressMode;
  approval: MerchantApproval;
  enabled: number;
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
}

export interface AuditLogTable {
  id: Generated<number>;
  at: string;
  /** Who acted: the operating-system user of a CLI command, or `system`. */
  actor: string;
  action: string;
  subject_type: string;
  subject_id: string;
  merchant_id: string | null;
  /** JSON object with the parameters of the action (never secrets). */
  details: string;
}

export interface DB {
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
}
