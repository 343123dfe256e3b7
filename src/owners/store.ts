/** SQL for owner accounts, their merchants and their one-time setup links. */
import type { Executor, Tx } from '../db/database.js';
import type { MemberRole, OwnerSessionsTable, OwnerSetupTokensTable, OwnersTable } from '../db/tables/cabinet.js';
import type { MerchantRow } from '../merchants/store.js';

export type OwnerRow = OwnersTable;
export type SetupTokenRow = OwnerSetupTokensTable;

export async function insertOwner(db: Tx, row: OwnerRow): Promise<void> {
  await db.insertInto('owners').values(row).execute();
}

export async function findOwnerByEmail(db: Executor, email: string): Promise<OwnerRow | undefined> {
  return db.selectFrom('owners').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findOwner(db: Executor, id: string): Promise<OwnerRow | undefined> {
  return db.selectFrom('owners').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listOwners(db: Executor): Promise<OwnerRow[]> {
  return db.selectFrom('owners').selectAll().orderBy('email').execute();
}

export async function updateOwner(
  db: Tx,
  id: string,
  patch: Partial<Omit<OwnerRow, 'id' | 'email' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('owners').set(patch).where('id', '=', id).execute();
}

/** Grants the merchant in `role`; a grant already held takes the role given. False when nothing changed. */
export async function grantMerchant(
  db: Tx,
  ownerId: string,
  merchantId: string,
  at: string,
  role: MemberRole = 'owner',
): Promise<boolean> {
  const r = await db
    .insertInto('owner_merchants')
    .values({ owner_id: ownerId, merchant_id: merchantId, granted_at: at, role })
    .onConflict((oc) =>
      oc.columns(['owner_id', 'merchant_id']).doUpdateSet({ role }).where('owner_merchants.role', '!=', role),
    )
    .executeTakeFirst();
  return (r.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function revokeMerchant(db: Tx, ownerId: string, merchantId: string): Promise<boolean> {
  const r = await db
    .deleteFrom('owner_merchants')
    .where('owner_id', '=', ownerId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** The merchant ids of each owner, for lists (one query for all owners). */
export async function merchantIdsByOwner(db: Executor): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('owner_merchants')
    .select(['owner_id', 'merchant_id'])
    .orderBy('owner_id')
    .orderBy('merchant_id')
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.owner_id, [...(out.get(r.owner_id) ?? []), r.merchant_id]);
  return out;
}

/** The merchants an owner sees with its role in each, oldest first. */
export async function merchantsOfOwner(db: Executor, ownerId: string): Promise<(MerchantRow & { role: MemberRole })[]> {
  return db
    .selectFrom('owner_merchants as om')
    .innerJoin('merchants as m', 'm.id', 'om.merchant_id')
    .selectAll('m')
    .select('om.role')
    .where('om.owner_id', '=', ownerId)
    .orderBy('m.created_at')
    .orderBy('m.id')
    .execute();
}

/** The merchant `merchantId` and the account's role in it; undefined for an absent one and another account's alike. */
export async function ownedMerchant(
  db: Executor,
  ownerId: string,
  merchantId: string,
): Promise<(MerchantRow & { role: MemberRole }) | undefined> {
  return db
    .selectFrom('owner_merchants as om')
    .innerJoin('merchants as m', 'm.id', 'om.merchant_id')
    .selectAll('m')
    .select('om.role')
    .where('om.owner_id', '=', ownerId)
    .where('om.merchant_id', '=', merchantId)
    .executeTakeFirst();
}

/** The role of each merchant the owner sees. */
export async function rolesOfOwner(db: Executor, ownerId: string): Promise<Map<string, MemberRole>> {
  const rows = await db
    .selectFrom('owner_merchants')
    .select(['merchant_id', 'role'])
    .where('owner_id', '=', ownerId)
    .execute();
  return new Map(rows.map((r) => [r.merchant_id, r.role]));
}

/** The accounts that hold a merchant, by email. */
export async function membersOf(db: Executor, merchantId: string) {
  return db
    .selectFrom('owner_merchants as om')
    .innerJoin('owners as o', 'o.id', 'om.owner_id')
    .select(['o.id as account_id', 'o.email', 'om.role', 'om.granted_at', 'o.password_hash', 'o.disabled_at'])
    .where('om.merchant_id', '=', merchantId)
    .orderBy('o.email')
    .execute();
}

export async function insertSetupToken(db: Tx, row: SetupTokenRow): Promise<void> {
  await db.insertInto('owner_setup_tokens').values(row).execute();
}

export async function findSetupToken(db: Executor, tokenHash: string): Promise<SetupTokenRow | undefined> {
  return db.selectFrom('owner_setup_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Uses a setup token; false when it was used already (the compare-and-set makes it single use). */
export async function useSetupToken(db: Tx, tokenHash: string, at: string): Promise<boolean> {
  const r = await db
    .updateTable('owner_setup_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Ends every unused setup link of an owner (a new one replaces them). */
export async function expireSetupTokens(db: Tx, ownerId: string, at: string): Promise<void> {
  await db
    .updateTable('owner_setup_tokens')
    .set({ used_at: at })
    .where('owner_id', '=', ownerId)
    .where('used_at', 'is', null)
    .execute();
}

export type SessionRow = OwnerSessionsTable;

export async function insertSession(db: Tx, row: SessionRow): Promise<void> {
  await db.insertInto('owner_sessions').values(row).execute();
}

/** A session with its owner, read on every cabinet request (so a disabled account stops at once). */
export async function findSessionWithOwner(
  db: Executor,
  tokenHash: string,
): Promise<{ session: SessionRow; owner: OwnerRow } | undefined> {
  const row = await db
    .selectFrom('owner_sessions as s')
    .innerJoin('owners as o', 'o.id', 's.owner_id')
    .selectAll('o')
    .select([
      's.token_hash',
      's.transport',
      's.created_at as session_created_at',
      's.last_seen_at',
      's.expires_at',
      's.ended_at',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { token_hash, transport, session_created_at, last_seen_at, expires_at, ended_at, ...owner } = row;
  return {
    session: {
      token_hash,
      owner_id: owner.id,
      transport,
      created_at: session_created_at,
      last_seen_at,
      expires_at,
      ended_at,
    },
    owner,
  };
}

/** Moves the idle expiry of a live session forward. */
export async function touchSession(db: Tx, tokenHash: string, at: string, expiresAt: string): Promise<void> {
  await db
    .updateTable('owner_sessions')
    .set({ last_seen_at: at, expires_at: expiresAt })
    .where('token_hash', '=', tokenHash)
    .where('ended_at', 'is', null)
    .execute();
}

export async function endSession(db: Tx, tokenHash: string, at: string): Promise<void> {
  await db
    .updateTable('owner_sessions')
    .set({ ended_at: at })
    .where('token_hash', '=', tokenHash)
    .where('ended_at', 'is', null)
    .execute();
}

/** Ends every live session of an owner, but the one of `keepTokenHash` when given; returns how many. */
export async function endOwnerSessions(db: Tx, ownerId: string, at: string, keepTokenHash?: string): Promise<number> {
  let q = db
    .updateTable('owner_sessions')
    .set({ ended_at: at })
    .where('owner_id', '=', ownerId)
    .where('ended_at', 'is', null);
  if (keepTokenHash !== undefined) q = q.where('token_hash', '!=', keepTokenHash);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Removes the account's recovery codes (a new enrolment or an operator's reset). */
export async function deleteRecoveryCodes(trx: Tx, ownerId: string): Promise<void> {
  await trx.deleteFrom('owner_recovery_codes').where('owner_id', '=', ownerId).execute();
}
