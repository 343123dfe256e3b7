/** Operator tasks on the ledger: corrections (`ledger credit`, `ledger debit`) and `merchant balance`. */
import type { AssetCatalog } from '../assets/catalog.js';
import { requireCatalogAsset } from '../assets/service.js';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';
import { AmountError, formatAmount, formatUnits, parseAmount } from '../money.js';
import { balances, post, type Balance } from './service.js';
import { entryBySource, type LedgerEntryRow } from './store.js';

export const MEMO_MAX = 500;

export interface BalanceView {
  asset: string;
  available: string;
  reserved: string;
  /** available + reserved (credits − debits). */
  total: string;
}

export function balanceView(b: Balance, decimals: number): BalanceView {
  return {
    asset: b.asset,
    available: formatAmount(b.available, decimals),
    reserved: formatAmount(b.reserved, decimals),
    total: formatAmount(b.balance, decimals),
  };
}

export interface CreditInput {
  asset: string;
  amount: string;
  memo: string;
  /**
   * The operator's reference of this correction (a ticket number): a repeat with the same
   * reference answers the entry already booked instead of booking again.
   */
  reference?: string | null;
}

export const REFERENCE_MAX = 200;
const REFERENCE = /^[\x21-\x7E]+$/;
/** source_ref of a correction; the prefix keeps operator references apart from deposit:… refs. */
const sourceRefOf = (reference: string) => `correction:${reference}`;

export interface CreditView {
  entry_id: number;
  merchant_id: string;
  asset: string;
  amount: string;
  memo: string;
  /** The --reference given, or null. */
  reference: string | null;
  /** True when the reference was already booked: this is that entry, nothing new was booked. */
  replayed: boolean;
  /** Balance right after this entry. */
  balance: BalanceView;
  created_at: string;
}

/** What a correction is given: the operator, the merchant and the amount. */
type CorrectionArgs = [
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  merchantId: string,
  input: CreditInput,
];

/** A correction credit: one ledger entry and one audit record in the same transaction. */
export function creditMerchant(...args: CorrectionArgs): Promise<CreditView> {
  return correctBalance('credit', ...args);
}

/**
 * A correction debit (e.g. undoing a mistaken credit): it may take only what is available, never
 * money reserved for payouts, so `insufficient_balance` otherwise.
 */
export function debitMerchant(...args: CorrectionArgs): Promise<CreditView> {
  return correctBalance('debit', ...args);
}

async function correctBalance(
  kind: 'credit' | 'debit',
  ...[db, clock, actor, catalog, merchantId, input]: CorrectionArgs
): Promise<CreditView> {
  const asset = requireCatalogAsset(catalog, input.asset);
  let amount: bigint;
  try {
    amount = parseAmount(input.amount, asset.decimals, asset.maxUnits);
  } catch (e) {
    throw new AppError('invalid_argument', `--amount ${(e as AmountError).message}`);
  }
  const memo = input.memo.trim();
  if (memo.length < 1 || memo.length > MEMO_MAX)
    throw new AppError('invalid_argument', `--memo must be 1 to ${MEMO_MAX} characters`);
  const reference = input.reference ?? null;
  if (reference !== null && (reference.length > REFERENCE_MAX || !REFERENCE.test(reference))) {
    throw new AppError(
      'invalid_argument',
      `--reference must be 1 to ${REFERENCE_MAX} printable ASCII characters without spaces`,
    );
  }
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    if (reference !== null) {
      const booked = await entryBySource(trx, sourceRefOf(reference));
      if (booked) return replay(booked, { merchantId, asset: asset.code, kind, amount, reference }, asset.decimals);
    }
    const entry = await post(trx, clock, {
      merchantId,
      asset: asset.code,
      kind,
      amount,
      memo,
      actor,
      sourceRef: reference === null ? null : sourceRefOf(reference),
    });
    const shown = formatAmount(amount, asset.decimals);
    await recordAudit(trx, clock, {
      actor,
      action: `ledger.${kind}`,
      subjectType: 'merchant',
      subjectId: merchantId,
      merchantId,
      details: {
        asset: asset.code,
        amount: shown,
        memo,
        entry_id: entry.id,
        ...(reference === null ? {} : { reference }),
      },
    });
    return creditView(entry, reference, false, asset.decimals);
  });
}

function creditView(entry: LedgerEntryRow, reference: string | null, replayed: boolean, decimals: number): CreditView {
  const total = BigInt(entry.balance_after);
  const reserved = BigInt(entry.reserved_after);
  return {
    entry_id: entry.id,
    merchant_id: entry.merchant_id,
    asset: entry.asset,
    amount: formatUnits(entry.amount, decimals),
    memo: entry.memo ?? '',
    reference,
    replayed,
    balance: balanceView({ asset: entry.asset, balance: total, reserved, available: total - reserved }, decimals),
    created_at: entry.created_at,
  };
}

/**
 * A reference already booked: the same correction (merchant, asset, kind, amount) answers its
 * entry; anything else under that reference is refused, since one of the two must be a mistake.
 */
function replay(
  booked: LedgerEntryRow,
  asked: { merchantId: string; asset: string; kind: 'credit' | 'debit'; amount: bigint; reference: string },
  decimals: number,
): CreditView {
  const same =
    booked.merchant_id === asked.merchantId &&
    booked.asset === asked.asset &&
    booked.kind === asked.kind &&
    BigInt(booked.amount) === asked.amount;
  if (!same) {
    throw new AppError(
      'reference_conflict',
      `--reference ${asked.reference} was already used for a ${booked.kind} of ${formatUnits(booked.amount, decimals)} ${booked.asset} ` +
        `to merchant ${booked.merchant_id} (entry ${booked.id}); use a new reference for a different correction`,
    );
  }
  return creditView(booked, asked.reference, true, decimals);
}

export interface MerchantBalancesView {
  merchant_id: string;
  balances: BalanceView[];
}

/** Available and reserved per asset the merchant has entries in. */
export async function merchantBalances(
  db: Db,
  catalog: AssetCatalog,
  merchantId: string,
): Promise<MerchantBalancesView> {
  await requireMerchant(db, merchantId);
  const rows = await balances(db, merchantId);
  return {
    merchant_id: merchantId,
    balances: rows.map((b) => {
      const decimals = catalog.get(b.asset)?.decimals;
      // An asset dropped from the catalog keeps its money; show base units rather than guess.
      return balanceView(b, decimals ?? 0);
    }),
  };
}
