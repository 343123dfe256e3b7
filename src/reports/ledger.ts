/**
 * The ledger report: per account (merchant, asset) the opening balance at `from`, every entry of
 * the period and the closing balance at `to`, where a balance is available + reserved (the
 * ledger's credits − debits) and an entry's amount is its signed change of that balance. A
 * reservation and its release move money between available and reserved only: the JSON lists
 * them with amount "0", so every entry of the account appears and entry ids can be followed; the
 * CSV, read in spreadsheets where such rows only get in the way of sums and filters, leaves them out.
 *
 * An account's entries of the period are the run of seq after the last entry dated before `from`
 * through the last entry dated before `to` (entries are never dated before the one they follow,
 * src/ledger/service.ts), so consecutive periods tile the ledger exactly and
 * opening + Σ entries = closing holds by the ledger's own running totals. Each entry's stored
 * running total is checked on the way: a ledger that disagrees with itself stops the report with
 * an error instead of printing figures that do not add up.
 *
 * Accounts are listed by merchant id, then asset; an account with no entry before `to` is absent;
 * one with entries before the period but none in it is listed with opening = closing and no
 * entries (its balance at month end).
 */
import type { AssetCatalog } from '../assets/catalog.js';
import type { Executor } from '../db/database.js';
import { formatAmount } from '../money.js';
import { csvHeader, csvRows, type ReportFormat } from './format.js';
import type { Period } from './period.js';
import {
  balanceChange,
  directionOf,
  LEDGER_CSV_COLUMNS,
  sourceOf,
  type LedgerCsvRecord,
  type LedgerEntryRecord,
} from './rows.js';
import { entryBatch, fillMerchantNames, lastEntryBefore, nextAccount, type Account } from './store.js';

export interface LedgerReportInput {
  db: Executor;
  catalog: AssetCatalog;
  format: ReportFormat;
  period: Period;
  merchantId: string | null;
  batchSize: number;
  /** Called with the number of entries written so far, after each batch. */
  progress: (rows: number) => void;
}

/** Thrown when an entry's stored running total is not what the entries before it add up to. */
export class LedgerInconsistent extends Error {}

interface Bounds {
  openSeq: number;
  closeSeq: number;
  opening: bigint;
  closing: bigint;
}

async function boundsOf(db: Executor, account: Account, period: Period): Promise<Bounds | null> {
  const close = await lastEntryBefore(db, account, period.to);
  if (!close) return null;
  const open = await lastEntryBefore(db, account, period.from);
  const openSeq = open?.seq ?? 0;
  const opening = BigInt(open?.balance_after ?? '0');
  // Dated before `to` yet older in seq than the opening entry can only come from entries written
  // before dates were kept monotonic: the period then holds no entry.
  if (close.seq <= openSeq) return { openSeq, closeSeq: openSeq, opening, closing: opening };
  return { openSeq, closeSeq: close.seq, opening, closing: BigInt(close.balance_after) };
}

export async function* ledgerChunks(input: LedgerReportInput): AsyncIterable<string> {
  const { db, format, period } = input;
  const json = format === 'json';
  yield json
    ? `{"from":${JSON.stringify(period.from)},"to":${JSON.stringify(period.to)},"accounts":[`
    : csvHeader(LEDGER_CSV_COLUMNS);
  let written = 0;
  let accounts = 0;
  let account: Account | undefined = undefined;
  const names = new Map<string, string>();
  while ((account = await nextAccount(db, input.merchantId, account ?? null))) {
    const bounds = await boundsOf(db, account, period);
    if (!bounds) continue;
    await fillMerchantNames(db, [account.merchant_id], names);
    const merchantName = names.get(account.merchant_id) ?? '';
    const decimals = input.catalog.get(account.asset)?.decimals ?? 0;
    const fmt = (units: bigint) => formatAmount(units, decimals);
    const line = (l: Omit<LedgerCsvRecord, 'merchant_id' | 'merchant_name' | 'asset'>): LedgerCsvRecord => ({
      merchant_id: account!.merchant_id,
      merchant_name: merchantName,
      asset: account!.asset,
      ...l,
    });
    if (json) {
      // The account's object up to its entries, which follow batch by batch.
      const head = JSON.stringify({
        merchant_id: account.merchant_id,
        merchant_name: merchantName,
        asset: account.asset,
        opening: fmt(bounds.opening),
        closing: fmt(bounds.closing),
      });
      yield `${accounts === 0 ? '\n' : ',\n'}${head.slice(0, -1)},"entries":[`;
    } else {
      const opening = fmt(bounds.opening);
      yield csvRows(LEDGER_CSV_COLUMNS, [
        line({
          line: 'opening',
          entry_id: null,
          at: period.from,
          kind: null,
          direction: null,
          amount: null,
          balance: opening,
          source: null,
          reference: null,
        }),
      ]);
    }
    accounts += 1;
    let balance = bounds.opening;
    let afterSeq = bounds.openSeq;
    let inAccount = 0;
    for (;;) {
      const rows = await entryBatch(db, account, afterSeq, bounds.closeSeq, input.batchSize);
      if (rows.length === 0) break;
      const records: LedgerEntryRecord[] = [];
      const lines: LedgerCsvRecord[] = [];
      for (const e of rows) {
        const change = balanceChange(e.kind, BigInt(e.amount));
        balance += change;
        if (balance.toString() !== e.balance_after)
          throw new LedgerInconsistent(
            `ledger of merchant ${account.merchant_id} in ${account.asset} disagrees with itself at entry ${e.id} (stored balance ${e.balance_after}, entries add up to ${balance}); no report is made from it`,
          );
        const { source, reference } = sourceOf(e);
        if (json)
          records.push({ entry_id: e.id, at: e.created_at, kind: e.kind, amount: fmt(change), source, reference });
        else if (e.kind !== 'reserve' && e.kind !== 'release')
          lines.push(
            line({
              line: 'entry',
              entry_id: e.id,
              at: e.created_at,
              kind: e.kind,
              direction: directionOf(change),
              amount: fmt(change),
              balance: fmt(balance),
              source,
              reference,
            }),
          );
      }
      afterSeq = rows[rows.length - 1]!.seq;
      if (json) {
        yield records.map((r, i) => `${inAccount + i === 0 ? '\n' : ',\n'}${JSON.stringify(r)}`).join('');
      } else if (lines.length > 0) yield csvRows(LEDGER_CSV_COLUMNS, lines);
      inAccount += rows.length;
      written += rows.length;
      input.progress(written);
      if (rows.length < input.batchSize) break;
    }
    if (balance !== bounds.closing)
      throw new LedgerInconsistent(
        `ledger of merchant ${account.merchant_id} in ${account.asset}: the period's entries add up to ${balance}, its closing entry says ${bounds.closing}; no report is made from it`,
      );
    if (json) yield inAccount === 0 ? ']}' : '\n]}';
    else
      yield csvRows(LEDGER_CSV_COLUMNS, [
        line({
          line: 'closing',
          entry_id: null,
          at: period.to,
          kind: null,
          direction: null,
          amount: null,
          balance: fmt(bounds.closing),
          source: null,
          reference: null,
        }),
      ]);
  }
  if (json) yield accounts === 0 ? ']}\n' : '\n]}\n';
}
