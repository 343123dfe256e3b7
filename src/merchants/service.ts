/**
 * Merchant lifecycle for the operator: create, approve/reject (the review before a merchant may
 * accept payments), enable/disable (the operator's switch), settings; and the owner's own switch
 * (switches.ts). Every change writes an audit entry in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import type { AddressMode, MerchantApproval } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { PageRequest } from '../http/pagination.js';
import { hasBidiControl } from '../http/schemas.js';
import { findMerchant, insertMerchant, listMerchants, updateMerchant, type MerchantRow } from './store.js';
import { disabledBy, merchantEnabled, type SwitchOwner } from './switches.js';

export interface MerchantView {
  merchant_id: string;
  name: string;
  address_mode: AddressMode;
  approval: MerchantApproval;
  /** Both switches on: the operator's and the owner's. */
  enabled: boolean;
  /** Whose switch is off: `["operator"]`, `["owner"]`, both, or `[]` when enabled. */
  disabled_by: SwitchOwner[];
  site_url: string | null;
  return_url: string | null;
  cancel_url: string | null;
  legacy_network_fee_payer: 'customer' | null;
  confirmations: number | null;
  created_at: string;
  updated_at: string;
}

export function merchantView(m: MerchantRow): MerchantView {
  return {
    merchant_id: m.id,
    name: m.name,
    address_mode: m.address_mode,
    approval: m.approval,
    enabled: merchantEnabled(m),
    disabled_by: disabledBy(m),
    site_url: m.site_url,
    return_url: m.return_url,
    cancel_url: m.cancel_url,
    legacy_network_fee_payer: m.legacy_network_fee_payer === 'customer' ? 'customer' : null,
    confirmations: m.confirmations,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

/** An absolute http(s) URL, as the operator typed it (trailing slash of a bare origin removed). */
export function parseMerchantUrl(flag: string, value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new AppError('invalid_argument', `${flag} must be an absolute http(s) URL, got "${value}"`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new AppError('invalid_argument', `${flag} must use http or https, got "${u.protocol}"`);
  }
  return u.pathname === '/' && !u.search && !u.hash ? u.origin : u.href;
}

export async function requireMerchant(db: Executor, id: string): Promise<MerchantRow> {
  const m = await findMerchant(db, id);
  if (!m) throw new AppError('merchant_not_found', `Merchant ${id} does not exist`);
  return m;
}

export interface CreateMerchantInput {
  name: string;
  addressMode?: AddressMode;
  siteUrl?: string | null;
  returnUrl?: string | null;
  cancelUrl?: string | null;
  legacyNetworkFeePayer?: 'customer' | null;
}

export async function createMerchant(
  db: Db,
  clock: Clock,
  actor: string,
  input: CreateMerchantInput,
): Promise<MerchantView> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200)
    throw new AppError('invalid_argument', '--name must be 1 to 200 characters');
  if (hasBidiControl(name))
    throw new AppError('invalid_argument', '--name must not hold bidirectional control characters');
  const now = clock.now().toISOString();
  const row: MerchantRow = {
    id: randomUUID(),
    name,
    address_mode: input.addressMode ?? 'per_invoice',
    approval: 'pending',
    enabled: 1,
    owner_enabled: 1,
    site_url: input.siteUrl ? parseMerchantUrl('--site-url', input.siteUrl) : null,
    return_url: input.returnUrl ? parseMerchantUrl('--return-url', input.returnUrl) : null,
    cancel_url: input.cancelUrl ? parseMerchantUrl('--cancel-url', input.cancelUrl) : null,
    legacy_network_fee_payer: input.legacyNetworkFeePayer ?? null,
    confirmations: null,
    created_at: now,
    updated_at: now,
  };
  await writeTx(db, async (trx) => {
    await insertMerchant(trx, row);
    await recordAudit(trx, clock, {
      actor,
      action: 'merchant.create',
      subjectType: 'merchant',
      subjectId: row.id,
      merchantId: row.id,
      details: { name, address_mode: row.address_mode, legacy_network_fee_payer: row.legacy_network_fee_payer },
    });
  });
  return merchantView(row);
}

export type MerchantAction = 'approve' | 'reject' | 'enable' | 'disable';

const ACTION_PATCH: Record<MerchantAction, Partial<MerchantRow>> = {
  approve: { approval: 'approved' },
  reject: { approval: 'rejected' },
  enable: { enabled: 1 },
  disable: { enabled: 0 },
};

/**
 * Approve/reject/enable/disable; enable and disable move the operator's switch only. Repeating an
 * action is harmless (the state is simply kept).
 */
export async function changeMerchant(
  db: Db,
  clock: Clock,
  actor: string,
  id: string,
  action: MerchantAction,
): Promise<MerchantView> {
  return writeTx(db, (trx) => applyMerchantAction(trx, clock, actor, id, action));
}

/** changeMerchant inside the caller's transaction (the cabinet changes more than one setting at once). */
export async function applyMerchantAction(
  trx: Tx,
  clock: Clock,
  actor: string,
  id: string,
  action: MerchantAction,
): Promise<MerchantView> {
  const before = await requireMerchant(trx, id);
  const patch = { ...ACTION_PATCH[action], updated_at: clock.now().toISOString() };
  await updateMerchant(trx, id, patch);
  await recordAudit(trx, clock, {
    actor,
    action: `merchant.${action}`,
    subjectType: 'merchant',
    subjectId: id,
    merchantId: id,
    details: { approval_before: before.approval, enabled_before: before.enabled === 1 },
  });
  return merchantView({ ...before, ...patch });
}

/**
 * The owner's switch (the cabinet), inside the caller's transaction. It never moves the
 * operator's: an owner cannot undo the operator's stop. Audited as `merchant.owner_enable|disable`.
 */
export async function setOwnerSwitch(
  trx: Tx,
  clock: Clock,
  actor: string,
  id: string,
  on: boolean,
): Promise<MerchantView> {
  const before = await requireMerchant(trx, id);
  const patch = { owner_enabled: Number(on), updated_at: clock.now().toISOString() };
  await updateMerchant(trx, id, patch);
  await recordAudit(trx, clock, {
    actor,
    action: on ? 'merchant.owner_enable' : 'merchant.owner_disable',
    subjectType: 'merchant',
    subjectId: id,
    merchantId: id,
    details: { owner_enabled_before: before.owner_enabled === 1, disabled_by_before: disabledBy(before) },
  });
  return merchantView({ ...before, ...patch });
}

/**
 * Clears the legacy setting that the customer pays the network fee (with it, invoice creation
 * answers 503 network_fee_quote_unavailable); nothing is written when it is not set.
 */
export async function clearLegacyNetworkFeePayer(
  trx: Tx,
  clock: Clock,
  actor: string,
  id: string,
): Promise<MerchantView> {
  const before = await requireMerchant(trx, id);
  if (before.legacy_network_fee_payer === null) return merchantView(before);
  const patch = { legacy_network_fee_payer: null, updated_at: clock.now().toISOString() };
  await updateMerchant(trx, id, patch);
  await recordAudit(trx, clock, {
    actor,
    action: 'merchant.network_fee_payer',
    subjectType: 'merchant',
    subjectId: id,
    merchantId: id,
    details: { before: before.legacy_network_fee_payer, after: 'merchant' },
  });
  return merchantView({ ...before, ...patch });
}

export interface UpdateMerchantInput {
  siteUrl?: string | null;
  returnUrl?: string | null;
  cancelUrl?: string | null;
  confirmations?: number | null;
}

/** Settings; an empty string clears a URL. */
export async function updateMerchantSettings(
  db: Db,
  clock: Clock,
  actor: string,
  id: string,
  input: UpdateMerchantInput,
): Promise<MerchantView> {
  const patch: Partial<MerchantRow> = {};
  const url = (flag: string, v: string | null | undefined) => (v ? parseMerchantUrl(flag, v) : null);
  if (input.siteUrl !== undefined) patch.site_url = url('--site-url', input.siteUrl);
  if (input.returnUrl !== undefined) patch.return_url = url('--return-url', input.returnUrl);
  if (input.cancelUrl !== undefined) patch.cancel_url = url('--cancel-url', input.cancelUrl);
  if (input.confirmations !== undefined) {
    const c = input.confirmations;
    if (c !== null && (!Number.isInteger(c) || c < 1 || c > 1000)) {
      throw new AppError('invalid_argument', '--confirmations must be a whole number from 1 to 1000');
    }
    patch.confirmations = c;
  }
  return writeTx(db, async (trx) => {
    const before = await requireMerchant(trx, id);
    const full = { ...patch, updated_at: clock.now().toISOString() };
    await updateMerchant(trx, id, full);
    await recordAudit(trx, clock, {
      actor,
      action: 'merchant.update',
      subjectType: 'merchant',
      subjectId: id,
      merchantId: id,
      details: patch,
    });
    return merchantView({ ...before, ...full });
  });
}

export async function showMerchant(db: Db, id: string): Promise<MerchantView> {
  return merchantView(await requireMerchant(db, id));
}

/** Every merchant (`merchant list`), or one page of them, newest first (the console). */
export async function allMerchants(db: Db, page?: PageRequest): Promise<MerchantView[]> {
  return (await listMerchants(db, page)).map(merchantView);
}
