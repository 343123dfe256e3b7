/**
 * The payout whitelist: per merchant, asset and address, with a delay before first use (a
 * cooling-off period: a stolen operator session or a social-engineered change cannot be paid out
 * to at once). Added and removed only by the operator; every change is audited.
 *
 * Check for payouts (`assertWhitelisted`): absent → "not on the whitelist"; present but inside its
 * delay → "cannot be used before <time>". The amount plays no part, so the answer never depends
 * on it.
 */
import { randomUUID } from 'node:crypto';
import type { AssetCatalog } from '../assets/catalog.js';
import { isOwnAddress } from '../addresses/store.js';
import { requireCatalogAsset } from '../assets/service.js';
import { recordAudit } from '../audit/store.js';
import { isTronAddress } from '../chain/address.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';
import { assertPayoutAsset } from '../payouts/assets.js';
import { DurationError, formatDuration, parseDuration } from './duration.js';
import {
  insertEntry,
  listEntries,
  liveEntry,
  markRemoved,
  setUsableFrom,
  type ListFilter,
  type WhitelistEntryRow,
} from './store.js';

/** Default delay before first use when `--delay` is not given. */
export const DEFAULT_DELAY = '24h';
/** The longest delay accepted (a typo like 2400h should not lock an address away for months). */
export const MAX_DELAY_MS = 90 * 86_400_000;

export interface WhitelistEntryView {
  entry_id: string;
  merchant_id: string;
  asset: string;
  address: string;
  usable_from: string;
  /** Whether the delay has passed at the moment of the answer. */
  usable: boolean;
  created_at: string;
  created_by: string;
  removed_at: string | null;
  removed_by: string | null;
}

function view(e: WhitelistEntryRow, now: Date): WhitelistEntryView {
  return {
    entry_id: e.id,
    merchant_id: e.merchant_id,
    asset: e.asset,
    address: e.address,
    usable_from: e.usable_from,
    usable: e.removed_at === null && e.usable_from <= now.toISOString(),
    created_at: e.created_at,
    created_by: e.created_by,
    removed_at: e.removed_at,
    removed_by: e.removed_by,
  };
}

export interface AddInput {
  asset: string;
  address: string;
  delay?: string;
}

export interface AddResult {
  entry: WhitelistEntryView;
  /** false when the address was already on the whitelist. */
  created: boolean;
  /**
   * An entry already listed whose delay --delay lengthened: its first use moved later, measured
   * from when it was added (adr/0060). False for a new entry and for one left unchanged.
   */
  delay_extended: boolean;
}

export async function addToWhitelist(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  merchantId: string,
  input: AddInput,
): Promise<AddResult> {
  const asset = requireCatalogAsset(catalog, input.asset);
  assertPayoutAsset(catalog, asset.code);
  const address = input.address.trim();
  if (!isTronAddress(address)) {
    throw new AppError(
      'invalid_argument',
      `--address must be a TRON base58 address with a valid checksum (T…); got "${input.address}"`,
    );
  }
  let delayMs: number;
  try {
    delayMs = parseDuration(input.delay ?? DEFAULT_DELAY, MAX_DELAY_MS);
  } catch (e) {
    throw new AppError('invalid_argument', `--delay ${(e as DurationError).message}`);
  }
  // Before the write transaction: addresses are only ever added, and one derived later equal to
  // this one would be a hash collision; the payout worker checks again before it signs.
  await requireMerchant(db, merchantId);
  if (await isOwnAddress(db, address)) {
    throw new AppError(
      'invalid_argument',
      `--address ${address} belongs to this gateway (a deposit address or the hot wallet): a payout there would not be credited as a payment to anyone`,
    );
  }
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    const now = clock.now();
    const existing = await liveEntry(trx, merchantId, asset.code, address);
    if (existing) return changeDelay(trx, clock, actor, existing, input.delay === undefined ? null : delayMs);
    const row: WhitelistEntryRow = {
      id: randomUUID(),
      merchant_id: merchantId,
      asset: asset.code,
      address,
      usable_from: new Date(now.getTime() + delayMs).toISOString(),
      created_at: now.toISOString(),
      created_by: actor,
      removed_at: null,
      removed_by: null,
    };
    await insertEntry(trx, row);
    await recordAudit(trx, clock, {
      actor,
      action: 'whitelist.add',
      subjectType: 'whitelist_entry',
      subjectId: row.id,
      merchantId,
      details: { asset: asset.code, address, delay: formatDuration(delayMs), usable_from: row.usable_from },
    });
    return { entry: view(row, now), created: true, delay_extended: false };
  });
}

/**
 * `whitelist add` of an entry already listed (adr/0060): without --delay, or with the entry's own
 * delay, nothing changes (adding again is safe to repeat). A longer delay, measured from when the
 * entry was added, moves its first use later, audited; a shorter one is refused: a safety delay
 * is never shortened by a re-add (remove the entry and add it again for that).
 */
async function changeDelay(
  trx: Tx,
  clock: Clock,
  actor: string,
  entry: WhitelistEntryRow,
  delayMs: number | null,
): Promise<AddResult> {
  const now = clock.now();
  const current = Date.parse(entry.usable_from) - Date.parse(entry.created_at);
  if (delayMs === null || delayMs === current)
    return { entry: view(entry, now), created: false, delay_extended: false };
  if (delayMs < current)
    throw new AppError(
      'invalid_state',
      `${entry.address} is already on the whitelist with a delay of ${formatDuration(current)}; a shorter --delay is refused (a safety delay is never shortened by adding again): remove the entry and add it again to start a shorter one`,
    );
  const usableFrom = new Date(Date.parse(entry.created_at) + delayMs).toISOString();
  await setUsableFrom(trx, entry.id, usableFrom);
  await recordAudit(trx, clock, {
    actor,
    action: 'whitelist.delay_extended',
    subjectType: 'whitelist_entry',
    subjectId: entry.id,
    merchantId: entry.merchant_id,
    details: {
      asset: entry.asset,
      address: entry.address,
      delay: formatDuration(delayMs),
      previous_delay: formatDuration(current),
      usable_from: usableFrom,
      previous_usable_from: entry.usable_from,
    },
  });
  return { entry: view({ ...entry, usable_from: usableFrom }, now), created: false, delay_extended: true };
}

export interface RemoveInput {
  asset: string;
  address: string;
}

/** Removes the live entry; `address_not_whitelisted` when there is none. */
export async function removeFromWhitelist(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  merchantId: string,
  input: RemoveInput,
): Promise<WhitelistEntryView> {
  const asset = requireCatalogAsset(catalog, input.asset);
  const address = input.address.trim();
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    const existing = await liveEntry(trx, merchantId, asset.code, address);
    if (!existing)
      throw new AppError(
        'address_not_whitelisted',
        `Address ${address} is not on the whitelist of merchant ${merchantId} for ${asset.code}`,
      );
    const at = clock.now().toISOString();
    await markRemoved(trx, existing.id, at, actor);
    await recordAudit(trx, clock, {
      actor,
      action: 'whitelist.remove',
      subjectType: 'whitelist_entry',
      subjectId: existing.id,
      merchantId,
      details: { asset: asset.code, address },
    });
    return view({ ...existing, removed_at: at, removed_by: actor }, clock.now());
  });
}

export async function listWhitelist(db: Db, clock: Clock, filter: ListFilter): Promise<WhitelistEntryView[]> {
  if (filter.merchantId) await requireMerchant(db, filter.merchantId);
  const now = clock.now();
  return (await listEntries(db, filter)).map((e) => view(e, now));
}

/** Refuses an address that is absent or still in its delay; the message says which. */
export async function assertWhitelisted(
  db: Executor,
  merchantId: string,
  asset: string,
  address: string,
  now: Date,
): Promise<WhitelistEntryRow> {
  const entry = await liveEntry(db, merchantId, asset, address);
  if (!entry) {
    throw new AppError('address_not_whitelisted', `Address ${address} is not on the whitelist for ${asset}`);
  }
  if (entry.usable_from > now.toISOString()) {
    throw new AppError(
      'address_not_whitelisted',
      `Address ${address} is on the whitelist for ${asset} but its delay before first use has not passed; usable from ${entry.usable_from}`,
    );
  }
  return entry;
}
