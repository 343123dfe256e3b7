/** Row type of the operator tokens table (migrations 0048, 0052), joined into DB in ../schema.ts. */

/** A token of the operator console; the clear token is never stored. */
export interface OperatorTokensTable {
  /** The 16 hex characters after `op_`: public, shown by `operator token list`. */
  token_id: string;
  /** Who or what holds it (a person, a script), given at issue. */
  name: string;
  /** argon2id encoded hash of the secret part. */
  secret_hash: string;
  created_at: string;
  /** The CLI actor that issued it. */
  created_by: string;
  revoked_at: string | null;
  revoked_by: string | null;
  /** 1: the token may call every GET of the console and nothing else (migration 0052). */
  read_only: number;
  /** From this moment the token is refused; null: it does not expire. */
  expires_at: string | null;
  /** JSON array of normalised CIDRs the token may be used from; null: any client address. */
  allowed_networks: string | null;
}

export interface OperatorTokenTables {
  operator_tokens: OperatorTokensTable;
}
