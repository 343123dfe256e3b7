/** Row type of the operator tokens table (migration 0048), joined into DB in ../schema.ts. */

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
}

export interface OperatorTokenTables {
  operator_tokens: OperatorTokensTable;
}
