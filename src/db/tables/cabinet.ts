/** Row types of the merchant cabinet's tables (migration 0049), joined into DB in ../schema.ts. */
import type { Generated } from 'kysely';

/** A merchant owner's account. Emails are stored in lower case. */
export interface OwnersTable {
  id: string;
  email: string;
  /** argon2id encoded hash; null until the owner has used the setup link. */
  password_hash: string | null;
  /**
   * The TOTP secret in force, sealed with the cabinet's key (`s1.…`, owners/secret-box.ts): it
   * must verify codes, so it cannot be hashed. A base32 value is one written before sealing, sealed
   * as soon as the app has its key.
   */
  totp_secret: string | null;
  /** 1 once a first code confirmed the secret: sign-in then needs a code. */
  totp_enabled: number;
  /** A secret handed out by an enrolment and not yet confirmed by a code (sealed too). */
  totp_pending_secret: string | null;
  /** The time step of the last code accepted, so a code is never accepted twice. */
  totp_last_counter: number | null;
  /** Wrong second-factor codes (with the right password) since the last sign-in (0055). */
  totp_failures: number;
  /** Every tenth failure locks the second factor until then; null: never locked. */
  totp_locked_until: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One-time recovery codes handed out at enrolment: SHA-256 (hex) of each, never the code (0055). */
export interface OwnerRecoveryCodesTable {
  owner_id: string;
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

/** Which merchants an account sees. */
export interface OwnerMerchantsTable {
  owner_id: string;
  merchant_id: string;
  granted_at: string;
  /** `owner`: everything; `viewer`: reads, reports and exports only (0067). */
  role: Generated<MemberRole>;
}

export type MemberRole = 'owner' | 'viewer';

/** One-time setup links: SHA-256 (hex) of the token, never the token. */
export interface OwnerSetupTokensTable {
  token_hash: string;
  owner_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export type SessionTransport = 'bearer' | 'cookie';

/** Signed-in sessions: SHA-256 (hex) of the session token, never the token. */
export interface OwnerSessionsTable {
  token_hash: string;
  owner_id: string;
  /** `bearer` (the API) or `cookie` (the web page: state changes need the CSRF token). */
  transport: SessionTransport;
  created_at: string;
  /** Last request seen (recorded at most once a minute); the idle expiry counts from it. */
  last_seen_at: string;
  expires_at: string;
  /** Set at sign-out, or when the operator disables or resets the account. */
  ended_at: string | null;
  /**
   * The client address at sign-in (migration 0054); null for sessions from before it. Optional in
   * this type: only the sign-in writes it and only the account's session list reads it.
   */
  client_address?: string | null;
}

export interface CabinetTables {
  owners: OwnersTable;
  owner_merchants: OwnerMerchantsTable;
  owner_setup_tokens: OwnerSetupTokensTable;
  owner_sessions: OwnerSessionsTable;
  owner_recovery_codes: OwnerRecoveryCodesTable;
}
