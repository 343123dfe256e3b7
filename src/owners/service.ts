/**
 * Owner accounts of the merchant cabinet: made by the operator (`paygate owner …`), each with the
 * merchants it sees. An account starts without a password; the one-time setup link (24 h) is
 * where the owner chooses it. Passwords are argon2id hashes; the optional second factor is TOTP.
 * Every change writes an audit entry in its transaction.
 */
import argon2 from 'argon2';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import type { MemberRole } from '../db/tables/cabinet.js';
import { AppError, validationFailed } from '../errors.js';
import { ARGON2_OPTIONS } from '../keys/service.js';
import { requireMerchant } from '../merchants/service.js';
import {
  deleteRecoveryCodes,
  endOwnerSessions,
  expireSetupTokens,
  findOwnerByEmail,
  findSetupToken,
  grantMerchant,
  insertOwner,
  insertSetupToken,
  listOwners,
  merchantIdsByOwner,
  revokeMerchant,
  updateOwner,
  useSetupToken,
  type OwnerRow,
} from './store.js';

/** How long a setup link works. */

/** A new account: no password until its setup link is used, no second factor. */
export function newOwnerRow(email: string, now: string): OwnerRow {
  return {
    id: randomUUID(),
    email,
    password_hash: null,
    ...secondFactorOff(now),
    disabled_at: null,
    created_at: now,
  };
}

/** The columns that turn an account's second factor off, pending enrolment and lock included. */
export function secondFactorOff(now: string) {
  return {
    totp_enabled: 0,
    totp_secret: null,
    totp_pending_secret: null,
    totp_last_counter: null,
    totp_failures: 0,
    totp_locked_until: null,
    updated_at: now,
  } as const;
}

export const SETUP_LINK_TTL_MS = 24 * 3_600_000;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Every refused sign-in, setup link or session: one answer, whatever the cause. */
export const cabinetUnauthorized = () =>
  new AppError('unauthorized', 'Not signed in: wrong credentials, or a missing, used or expired token');

export type OwnerStatus = 'setup_pending' | 'active' | 'disabled';

export interface OwnerView {
  owner_id: string;
  email: string;
  status: OwnerStatus;
  totp: boolean;
  merchant_ids: string[];
  created_at: string;
  updated_at: string;
}

export interface SetupLink {
  /** Shown once; only its SHA-256 is stored. */
  setup_token: string;
  setup_url: string;
  setup_expires_at: string;
}

export function ownerStatus(o: OwnerRow): OwnerStatus {
  if (o.disabled_at) return 'disabled';
  return o.password_hash ? 'active' : 'setup_pending';
}

function ownerView(o: OwnerRow, merchantIds: string[]): OwnerView {
  return {
    owner_id: o.id,
    email: o.email,
    status: ownerStatus(o),
    totp: o.totp_enabled === 1,
    merchant_ids: merchantIds,
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

export const sha256Hex = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Emails are compared in lower case; null when `text` is not an email address. */
export function normalizeEmail(text: string): string | null {
  const email = text.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

function emailArgument(text: string): string {
  const email = normalizeEmail(text);
  if (!email) throw new AppError('invalid_argument', `--email must be an email address, got "${text}"`);
  return email;
}

export async function requireOwner(db: Executor, emailText: string): Promise<OwnerRow> {
  const email = normalizeEmail(emailText);
  const owner = email ? await findOwnerByEmail(db, email) : undefined;
  if (!owner) throw new AppError('owner_not_found', `No owner account has the email ${emailText}`);
  return owner;
}

async function viewOf(db: Executor, owner: OwnerRow): Promise<OwnerView> {
  return ownerView(owner, (await merchantIdsByOwner(db)).get(owner.id) ?? []);
}

/** A new setup link for `owner`; earlier unused links of the owner stop working. */
export async function newSetupLink(trx: Tx, now: Date, ownerId: string, cabinetUrl: string): Promise<SetupLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SETUP_LINK_TTL_MS).toISOString();
  await expireSetupTokens(trx, ownerId, now.toISOString());
  await insertSetupToken(trx, {
    token_hash: sha256Hex(token),
    owner_id: ownerId,
    created_at: now.toISOString(),
    expires_at: expiresAt,
    used_at: null,
  });
  // In the fragment: browsers never send it, so it stays out of proxy and server logs.
  return { setup_token: token, setup_url: `${cabinetUrl}/#setup=${token}`, setup_expires_at: expiresAt };
}

export interface CreateOwnerInput {
  email: string;
  merchantIds: string[];
  /** Where owners reach the cabinet (CABINET_PUBLIC_URL or its listener). */
  cabinetUrl: string;
}

export async function createOwner(
  db: Db,
  clock: Clock,
  actor: string,
  input: CreateOwnerInput,
): Promise<OwnerView & SetupLink> {
  const email = emailArgument(input.email);
  const merchantIds = [...new Set(input.merchantIds)];
  if (merchantIds.length === 0) throw new AppError('invalid_argument', 'Give at least one --merchant');
  return writeTx(db, async (trx) => {
    if (await findOwnerByEmail(trx, email)) {
      throw new AppError(
        'invalid_state',
        `An owner account with the email ${email} exists already: use \`paygate owner grant\` to add a merchant, \`paygate owner reset\` for a new setup link`,
      );
    }
    for (const id of merchantIds) await requireMerchant(trx, id);
    const at = clock.now();
    const now = at.toISOString();
    const row = newOwnerRow(email, now);
    await insertOwner(trx, row);
    for (const id of merchantIds) await grantMerchant(trx, row.id, id, now);
    const link = await newSetupLink(trx, at, row.id, input.cabinetUrl);
    await recordAudit(trx, clock, {
      actor,
      action: 'owner.create',
      subjectType: 'owner',
      subjectId: row.id,
      details: { email, merchant_ids: merchantIds },
    });
    return { ...ownerView(row, [...merchantIds].sort()), ...link };
  });
}

/** Gives the owner `email` the merchant in `role` (harmless when it holds it so already; a held grant takes the role). */
export async function grantOwnerMerchant(
  db: Db,
  clock: Clock,
  actor: string,
  email: string,
  merchantId: string,
  role: MemberRole = 'owner',
): Promise<OwnerView> {
  return writeTx(db, async (trx) => {
    const owner = await requireOwner(trx, email);
    await requireMerchant(trx, merchantId);
    if (await grantMerchant(trx, owner.id, merchantId, clock.now().toISOString(), role)) {
      await recordAudit(trx, clock, {
        actor,
        action: 'owner.grant',
        subjectType: 'owner',
        subjectId: owner.id,
        merchantId,
        details: { email: owner.email, role },
      });
    }
    return viewOf(trx, owner);
  });
}

/** Takes the merchant away from the owner `email`: its next request for it is merchant_not_found. */
export async function revokeOwnerMerchant(
  db: Db,
  clock: Clock,
  actor: string,
  email: string,
  merchantId: string,
): Promise<OwnerView> {
  return writeTx(db, async (trx) => {
    const owner = await requireOwner(trx, email);
    await requireMerchant(trx, merchantId);
    if (await revokeMerchant(trx, owner.id, merchantId)) {
      await recordAudit(trx, clock, {
        actor,
        action: 'owner.revoke',
        subjectType: 'owner',
        subjectId: owner.id,
        merchantId,
        details: { email: owner.email },
      });
    }
    return viewOf(trx, owner);
  });
}

export async function allOwners(db: Db): Promise<OwnerView[]> {
  const merchants = await merchantIdsByOwner(db);
  return (await listOwners(db)).map((o) => ownerView(o, merchants.get(o.id) ?? []));
}

/** Disables (or enables again) an account. Disabling ends its sessions and its setup links. */
export async function setOwnerEnabled(
  db: Db,
  clock: Clock,
  actor: string,
  email: string,
  enabled: boolean,
): Promise<OwnerView & { sessions_ended: number }> {
  return writeTx(db, async (trx) => {
    const owner = await requireOwner(trx, email);
    const now = clock.now().toISOString();
    const patch = { disabled_at: enabled ? null : (owner.disabled_at ?? now), updated_at: now };
    await updateOwner(trx, owner.id, patch);
    const ended = enabled ? 0 : await endOwnerSessions(trx, owner.id, now);
    if (!enabled) await expireSetupTokens(trx, owner.id, now);
    await recordAudit(trx, clock, {
      actor,
      action: enabled ? 'owner.enable' : 'owner.disable',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { email: owner.email, sessions_ended: ended },
    });
    return { ...(await viewOf(trx, { ...owner, ...patch })), sessions_ended: ended };
  });
}

/**
 * A lost password or authenticator: the password and the second factor (its secret, recovery
 * codes, failure count and lock) are cleared, every session ends, and a new setup link replaces any earlier one. A disabled account stays disabled.
 */
export async function resetOwner(
  db: Db,
  clock: Clock,
  actor: string,
  email: string,
  cabinetUrl: string,
): Promise<OwnerView & SetupLink> {
  return writeTx(db, async (trx) => {
    const owner = await requireOwner(trx, email);
    const at = clock.now();
    const now = at.toISOString();
    const patch = {
      password_hash: null,
      ...secondFactorOff(now),
    };
    await updateOwner(trx, owner.id, patch);
    await deleteRecoveryCodes(trx, owner.id);
    const ended = await endOwnerSessions(trx, owner.id, now);
    const link = await newSetupLink(trx, at, owner.id, cabinetUrl);
    await recordAudit(trx, clock, {
      actor,
      action: 'owner.reset',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { email: owner.email, sessions_ended: ended },
    });
    return { ...(await viewOf(trx, { ...owner, ...patch })), ...link };
  });
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    throw validationFailed('body.password', `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
}

/**
 * The setup link's step: the owner chooses a password. A token that is unknown, used, expired, or
 * of a disabled account is 401, and nothing is written.
 */
export async function completeSetup(db: Db, clock: Clock, token: string, password: string): Promise<OwnerRow> {
  checkPassword(password);
  const tokenHash = sha256Hex(token);
  const usable = async (ex: Executor) => {
    const link = await findSetupToken(ex, tokenHash);
    if (!link || link.used_at !== null || link.expires_at <= clock.now().toISOString()) return null;
    const owner = await ex.selectFrom('owners').selectAll().where('id', '=', link.owner_id).executeTakeFirst();
    return owner && !owner.disabled_at ? owner : null;
  };
  // Checked before hashing, so an unknown token costs no argon2; checked again where it is used.
  if (!(await usable(db))) throw cabinetUnauthorized();
  const passwordHash = await argon2.hash(password, ARGON2_OPTIONS);
  return writeTx(db, async (trx) => {
    const owner = await usable(trx);
    if (!owner || !(await useSetupToken(trx, tokenHash, clock.now().toISOString()))) throw cabinetUnauthorized();
    const now = clock.now().toISOString();
    const patch = { password_hash: passwordHash, updated_at: now };
    await updateOwner(trx, owner.id, patch);
    // A new password ends every session of the account (the setup link signs no one in, so none
    // is kept): whoever held one under the old password is out.
    const ended = await endOwnerSessions(trx, owner.id, now);
    await recordAudit(trx, clock, {
      actor: `owner:${owner.email}`,
      action: 'owner.setup',
      subjectType: 'owner',
      subjectId: owner.id,
      details: { sessions_ended: ended },
    });
    return { ...owner, ...patch };
  });
}
