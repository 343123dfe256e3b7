/** Operator tasks on the ledger: corrections (`ledger credit`, `ledger debit`) and `merchant balance`. */
import type { AssetCatalog } from '../assets/catalog.js';
import { requireCatalogAsset } from '../assets/service.js';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';
import { AmountError, formatAmount, parseAmount } from '../money.js';
import { balances, post, type Balance } from './service.js';

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
}

export interface CreditView {
  entry_id: number;
  merchant_id: string;
  asset: string;
  amount: string;
  memo: string;
  balance: BalanceView;
  created_at: string;
}

/** A correction credit: one ledger entry and one audit record in the same transaction. */
export function creditMerchant(db: Db, clock: Clock, actor: string, catalog: AssetCatalog, merchantId: string, input: CreditInput): Promise<CreditView> {
  return correctBalance(db, clock, actor, catalog, merchantId, 'credit', input);
}

/**
 * A correction debit (e.g. undoing a mistaken credit): it may take only what is available, never
 * money reserved for payouts, so `insufficient_balance` otherwise.
 */
export function debitMerchant(db: Db, clock: Clock, actor: string, catalog: AssetCatalog, merchantId: string, input: CreditInput): Promise<CreditView> {
  return correctBalance(db, clock, actor, catalog, merchantId, 'debit', input);
}

async function correctBalance(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  merchantId: string,
  kind: 'credit' | 'debit',
  input: CreditInput,
): Promise<CreditView> {
  const asset = requireCatalogAsset(catalog, input.asset);
  let amount: bigint;
  try {
    amount = parseAmount(input.amount, asset.decimals, asset.maxUnits);
  } catch (e) {
    throw new AppError('invalid_argument', `--amount ${(e as AmountError).message}`);
  }
  const memo = input.memo.trim();
  if (memo.length < 1 || memo.length > MEMO_MAX) throw new AppError('invalid_argument', `--memo must be 1 to ${MEMO_MAX} characters`);
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    const entry = await post(trx, clock, { merchantId, asset: asset.code, kind, amount, memo, actor });
    const shown = formatAmount(amount, asset.decimals);
    await recordAudit(trx, clock, {
      actor,
      action: `ledger.${kind}`,
      subjectType: 'merchant',
      subjectId: merchantId,
      merchantId,
      details: { asset: asset.code, amount: shown, memo, entry_id: entry.id },
    });
    const total = BigInt(entry.balance_after);
    const reserved = BigInt(entry.reserved_after);
    return {
      entry_id: entry.id,
      merchant_id: merchantId,
      asset: asset.code,
      amount: shown,
      memo,
      balance: balanceView({ asset: asset.code, balance: total, reserved, available: total - reserved }, asset.decimals),
      created_at: entry.created_at,
    };
  });
}

export interface MerchantBalancesView {
  merchant_id: string;
  balances: BalanceView[];
}

/** Available and reserved per asset the merchant has entries in. */
export async function merchantBalances(db: Db, catalog: AssetCatalog, merchantId: string): Promise<MerchantBalancesView> {
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
