/**
 * The merchant ledger (append-only, balance-derived). Four kinds of entry, each moving one total:
 *
 *   credit   balance  += amount   settled deposits (with sourceRef, booked once); operator corrections
 *   debit    balance  -= amount   a confirmed payout: its amount plus its fee
 *   reserve  reserved += amount   a payout at creation: amount plus fee
 *   release  reserved -= amount   the reservation of a payout that was rejected, failed or confirmed
 *
 * available = balance − reserved. No entry may leave available, balance or reserved below zero:
 * a reservation that would is `insufficient_balance`, anything else is a bug and aborts the
 * transaction. Appends must run inside a write transaction (BEGIN IMMEDIATE), which serialises
 * them; UNIQUE (merchant_id, asset, seq) backs that up across processes.
 */
import type { Clock } from '../clock.js';
import type { Executor, Tx } from '../db/database.js';
import type { LedgerKind } from '../db/schema.js';
import { AppError } from '../errors.js';
import { entriesOf, insertEntry, lastEntries, lastEntry, payoutEntries, type LedgerEntryRow } from './store.js';

export interface Balance {
  asset: string;
  /** credits − debits */
  balance: bigint;
  /** active reservations */
  reserved: bigint;
  /** balance − reserved: what new payouts can use */
  available: bigint;
}

function balanceOf(asset: string, e: LedgerEntryRow | undefined): Balance {
  const balance = e ? BigInt(e.balance_after) : 0n;
  const reserved = e ? BigInt(e.reserved_after) : 0n;
  return { asset, balance, reserved, available: balance - reserved };
}

export async function balance(db: Executor, merchantId: string, asset: string): Promise<Balance> {
  return balanceOf(asset, await lastEntry(db, merchantId, asset));
}

/** Balances of every asset the merchant has ledger entries in, by asset code. */
export async function balances(db: Executor, merchantId: string): Promise<Balance[]> {
  return (await lastEntries(db, merchantId)).map((e) => balanceOf(e.asset, e));
}

export interface Posting {
  merchantId: string;
  asset: string;
  kind: LedgerKind;
  amount: bigint;
  payoutId?: string | null;
  /** e.g. `deposit:<tx_hash>:<log_index>`: the same source can be booked only once (UNIQUE). */
  sourceRef?: string | null;
  memo?: string | null;
  actor: string;
}

/** Moves the running totals by one entry (pure; used by append and by verification). */
export function applyEntry(
  before: { balance: bigint; reserved: bigint },
  kind: LedgerKind,
  amount: bigint,
): { balance: bigint; reserved: bigint } {
  switch (kind) {
    case 'credit':
      return { balance: before.balance + amount, reserved: before.reserved };
    case 'debit':
      return { balance: before.balance - amount, reserved: before.reserved };
    case 'reserve':
      return { balance: before.balance, reserved: before.reserved + amount };
    case 'release':
      return { balance: before.balance, reserved: before.reserved - amount };
  }
}

/** Appends one entry. Call inside a write transaction. */
export async function post(trx: Tx, clock: Clock, p: Posting): Promise<LedgerEntryRow> {
  if (p.amount <= 0n) throw new Error(`ledger: ${p.kind} of a non-positive amount ${p.amount}`);
  const last = await lastEntry(trx, p.merchantId, p.asset);
  const before = balanceOf(p.asset, last);
  const after = applyEntry(before, p.kind, p.amount);
  if (after.balance - after.reserved < 0n || after.reserved < 0n || after.balance < 0n) {
    if (p.kind === 'reserve') {
      throw new AppError('insufficient_balance', 'The amount plus the payout fee exceeds the available balance');
    }
    // An operator's correction debit (no payout) may take only available money.
    if (p.kind === 'debit' && !p.payoutId)
      throw new AppError('insufficient_balance', 'The debit exceeds the available balance');
    // Releases and payout debits only ever consume a reservation made earlier; reaching here is a bug.
    throw new Error(`ledger: ${p.kind} of ${p.amount} would leave ${p.merchantId}/${p.asset} negative`);
  }
  // Never dated before the entry it follows (a clock stepped back, another process's clock): an
  // account's entries of any period are then one unbroken run of seq, which the ledger report's
  // opening + entries = closing rests on (src/reports/ledger.ts).
  const now = clock.now().toISOString();
  const at = last !== undefined && last.created_at > now ? last.created_at : now;
  return insertEntry(trx, {
    merchant_id: p.merchantId,
    asset: p.asset,
    seq: (last?.seq ?? 0) + 1,
    kind: p.kind,
    amount: p.amount.toString(),
    balance_after: after.balance.toString(),
    reserved_after: after.reserved.toString(),
    payout_id: p.payoutId ?? null,
    source_ref: p.sourceRef ?? null,
    memo: p.memo ?? null,
    actor: p.actor,
    created_at: at,
  });
}

/** The reservation of a payout still held (reserve without release), in base units; 0 if none. */
export async function heldReservation(db: Executor, merchantId: string, payoutId: string): Promise<bigint> {
  const entries = await payoutEntries(db, merchantId, payoutId);
  const reserved = entries.find((e) => e.kind === 'reserve');
  const released = entries.find((e) => e.kind === 'release');
  return reserved && !released ? BigInt(reserved.amount) : 0n;
}

/**
 * Recomputes a merchant's asset from its entries and checks every stored running total and the
 * sequence. Returns the problems found (empty when the ledger is consistent).
 */
export async function verifyLedger(db: Executor, merchantId: string, asset: string): Promise<string[]> {
  const problems: string[] = [];
  let totals = { balance: 0n, reserved: 0n };
  let seq = 0;
  for (const e of await entriesOf(db, merchantId, asset)) {
    seq += 1;
    if (e.seq !== seq) problems.push(`entry ${e.id}: seq ${e.seq}, expected ${seq}`);
    totals = applyEntry(totals, e.kind, BigInt(e.amount));
    if (totals.balance.toString() !== e.balance_after)
      problems.push(`entry ${e.id}: balance_after ${e.balance_after}, recomputed ${totals.balance}`);
    if (totals.reserved.toString() !== e.reserved_after)
      problems.push(`entry ${e.id}: reserved_after ${e.reserved_after}, recomputed ${totals.reserved}`);
    if (totals.balance - totals.reserved < 0n) problems.push(`entry ${e.id}: available below zero`);
  }
  return problems;
}
