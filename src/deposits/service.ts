/**
 * Deposits found by the chain watcher: attribution (invoice, permanent address, standalone),
 * idempotent recording by (tx_hash, log_index), progress (confirmations, finality) and the credit
 * of standalone deposits. Everything here runs inside the watcher's write transaction.
 */
import type { Clock } from '../clock.js';
import type { Tx } from '../db/database.js';
import { uuidv7 } from '../db/ids.js';
import { serviceFeeAt } from '../fees/service.js';
import { post } from '../ledger/service.js';
import { invoiceOfAddress, oldestOpenOfAddress } from '../invoices/store.js';
import { foreignDeposit } from '../exceptions/deposits.js';
import { percentOf } from '../money.js';
import { recordEvent, subjectEventCount } from '../webhooks/outbox.js';
import { depositRef, findDeposit, insertDeposit, markCredited, moveDeposit, type DepositRow } from './store.js';
import { standaloneDepositView } from './view.js';

/** A successful transfer of a catalog asset into a deposit address, as the chain shows it. */
export interface FoundTransfer {
  address: string;
  /** The address's derivation index (its invoices are found by it). */
  derivationIndex: number;
  merchantId: string;
  /** Set for a permanent (per_user) address. */
  externalUserId: string | null;
  asset: string;
  decimals: number;
  amount: bigint;
  txHash: string;
  logIndex: number;
  from: string | null;
  block: { number: number; hash: string; time: string };
  /** The asset's minimum deposit: another asset's deposit below it to an invoice's address is dust. */
  minimumDeposit?: bigint;
}

export interface DepositContext {
  clock: Clock;
  /** The head the watcher scans against: a standalone deposit.seen states its confirmations. */
  head: number;
}

/** Which invoice a transfer pays, if any (docs/adr/0017-deposit-address-modes.md). */
async function attribute(trx: Tx, t: FoundTransfer): Promise<{ invoiceId: string | null; expiresAt: string | null }> {
  if (t.externalUserId !== null) {
    // A permanent address: the oldest open invoice of that user in that asset.
    const open = await oldestOpenOfAddress(trx, t.address, t.derivationIndex, t.asset, t.block.time);
    return open ? { invoiceId: open.id, expiresAt: open.expires_at } : { invoiceId: null, expiresAt: null };
  }
  const inv = await invoiceOfAddress(trx, t.address, t.derivationIndex);
  // Another asset than the invoice's is not a payment of it: a standalone deposit in its own asset.
  return inv && inv.asset === t.asset
    ? { invoiceId: inv.id, expiresAt: inv.expires_at }
    : { invoiceId: null, expiresAt: null };
}

async function eventKey(trx: Tx, subjectId: string, what: string): Promise<string> {
  return `deposit:${subjectId}:${what}:${await subjectEventCount(trx, subjectId)}`;
}

export async function standaloneEvent(
  trx: Tx,
  clock: Clock,
  d: DepositRow,
  type: 'deposit.seen' | 'deposit.confirmed',
): Promise<void> {
  await recordEvent(trx, clock, {
    merchantId: d.merchant_id,
    type,
    subjectId: d.id,
    data: standaloneDepositView(d),
    key: await eventKey(trx, d.id, type),
  });
}

/**
 * deposit.seen of a deposit just recorded: its row still holds 0 confirmations (the watcher counts
 * them later in the same transaction, deposit-progress.ts), but the event states them as counted
 * from the same head (`head − block + 1`, at least 1: its own block), as an invoice's events do.
 */
function seenEvent(trx: Tx, ctx: DepositContext, d: DepositRow): Promise<void> {
  return standaloneEvent(
    trx,
    ctx.clock,
    { ...d, confirmations: Math.max(1, ctx.head - d.block_number + 1) },
    'deposit.seen',
  );
}

/** What a recorded transfer changed: the deposit, and every invoice whose status may follow. */
export interface Recorded {
  deposit: DepositRow;
  invoices: string[];
}

/** Whether a transfer found again is the one recorded (a fork may re-run its call differently). */
function sameTransfer(d: DepositRow, t: FoundTransfer): boolean {
  return (
    d.address === t.address &&
    d.asset === t.asset &&
    d.decimals === t.decimals &&
    d.amount === t.amount.toString() &&
    d.from_address === t.from
  );
}

/**
 * Records a transfer; the same (tx_hash, log_index) is the same deposit, whether delivered twice or
 * re-included in another block after a fork. Returns what changed, or null when nothing did.
 */
export async function recordTransfer(trx: Tx, ctx: DepositContext, t: FoundTransfer): Promise<Recorded | null> {
  const now = ctx.clock.now().toISOString();
  const existing = await findDeposit(trx, t.txHash, t.logIndex);
  if (existing) {
    if (existing.block_hash === t.block.hash && existing.status !== 'orphaned') return null;
    if (existing.final === 1) return null;
    if (!sameTransfer(existing, t)) return replaceTransfer(trx, ctx, existing, t, now);
    const inv = existing.invoice_id
      ? await trx.selectFrom('invoices').select('expires_at').where('id', '=', existing.invoice_id).executeTakeFirst()
      : undefined;
    const late = inv && t.block.time > inv.expires_at ? 1 : 0;
    await moveDeposit(
      trx,
      existing.id,
      { block_number: t.block.number, block_hash: t.block.hash, block_time: t.block.time, late },
      now,
    );
    const moved = {
      ...existing,
      block_number: t.block.number,
      block_hash: t.block.hash,
      block_time: t.block.time,
      late,
      status: 'seen' as const,
      confirmations: 0,
      final: 0,
    };
    if (existing.status === 'orphaned' && moved.invoice_id === null) {
      await seenEvent(trx, ctx, moved);
      if (t.externalUserId === null) await foreignDeposit(trx, ctx.clock, moved, t.minimumDeposit ?? 0n);
    }
    return { deposit: moved, invoices: moved.invoice_id ? [moved.invoice_id] : [] };
  }
  const { invoiceId, expiresAt } = await attribute(trx, t);
  const row: DepositRow = {
    id: uuidv7(), // time-ordered: a deposit insert lands next to the last one (db/ids.ts)
    merchant_id: t.merchantId,
    address: t.address,
    asset: t.asset,
    decimals: t.decimals,
    amount: t.amount.toString(),
    tx_hash: t.txHash,
    log_index: t.logIndex,
    from_address: t.from,
    block_number: t.block.number,
    block_hash: t.block.hash,
    block_time: t.block.time,
    invoice_id: invoiceId,
    external_user_id: t.externalUserId,
    late: expiresAt !== null && t.block.time > expiresAt ? 1 : 0,
    status: 'seen',
    confirmations: 0,
    final: 0,
    credited_at: null,
    credited_amount: null,
    fee_amount: null,
    created_at: now,
    updated_at: now,
  };
  if (!(await insertDeposit(trx, row))) return null;
  if (invoiceId === null) {
    await seenEvent(trx, ctx, row);
    if (t.externalUserId === null) await foreignDeposit(trx, ctx.clock, row, t.minimumDeposit ?? 0n);
  }
  return { deposit: row, invoices: invoiceId ? [invoiceId] : [] };
}

/**
 * The transfer found again differs from the one recorded (another amount, token or receiver on the
 * new fork): the deposit becomes the new transfer, attributed afresh, as if first seen now. The
 * invoice it paid before is settled again too (without it).
 */
async function replaceTransfer(
  trx: Tx,
  ctx: DepositContext,
  existing: DepositRow,
  t: FoundTransfer,
  now: string,
): Promise<Recorded> {
  const { invoiceId, expiresAt } = await attribute(trx, t);
  const block = {
    block_number: t.block.number,
    block_hash: t.block.hash,
    block_time: t.block.time,
    late: expiresAt !== null && t.block.time > expiresAt ? 1 : 0,
  };
  const content = {
    merchant_id: t.merchantId,
    address: t.address,
    asset: t.asset,
    decimals: t.decimals,
    amount: t.amount.toString(),
    from_address: t.from,
    invoice_id: invoiceId,
    external_user_id: t.externalUserId,
  };
  await moveDeposit(trx, existing.id, block, now, content);
  const deposit: DepositRow = {
    ...existing,
    ...content,
    ...block,
    status: 'seen',
    confirmations: 0,
    final: 0,
    updated_at: now,
  };
  if (invoiceId === null) {
    await seenEvent(trx, ctx, deposit);
    if (existing.status === 'orphaned' && t.externalUserId === null)
      await foreignDeposit(trx, ctx.clock, deposit, t.minimumDeposit ?? 0n);
  }
  return {
    deposit,
    invoices: [...new Set([existing.invoice_id, invoiceId].filter((id): id is string => id !== null))],
  };
}

/**
 * Credits a final, confirmed standalone deposit once: its amount less the merchant's service fee
 * percent in force at its block time (docs/adr/0015-fees-and-rounding.md), never a zero or negative
 * entry.
 */
export async function creditStandalone(trx: Tx, ctx: DepositContext, d: DepositRow): Promise<void> {
  if (d.credited_at !== null || d.final !== 1 || d.status !== 'confirmed' || d.invoice_id !== null) return;
  const amount = BigInt(d.amount);
  const { percent } = await serviceFeeAt(trx, d.merchant_id, d.block_time);
  const percentFee = percentOf(amount, percent);
  const fee = percentFee < amount ? percentFee : amount;
  const credit = amount - fee;
  if (credit > 0n) {
    await post(trx, ctx.clock, {
      merchantId: d.merchant_id,
      asset: d.asset,
      kind: 'credit',
      amount: credit,
      sourceRef: depositRef(d),
      memo: 'standalone deposit',
      actor: 'system',
    });
  }
  await markCredited(trx, d.id, credit, fee, ctx.clock.now().toISOString());
}
