/**
 * Invoice fees. The service fee is per merchant: a percent of the requested amount and who pays it.
 * The fixed receiving amount is per asset and is added to the service fee. Both are dated
 * schedules set by the operator; an invoice copies the fee in force at its creation and keeps it.
 * Without any schedule the service fee is 0 percent paid by the merchant, and no fixed amount.
 */
import { recordAudit } from '../audit/store.js';
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import type { FeePayer } from '../db/schema.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';
import { AmountError, formatAmount, parseAmountOrZero, parsePercent, percentAbove, percentOf } from '../money.js';
import { feeInForce, feesInForce, insertFee, type FeeRow } from './store.js';

export const SERVICE_FEE_CONFIRM_ABOVE_PERCENT = '3';
/** Whole units of the asset above which a fixed receiving amount needs --confirm-high-amount. */
export const INVOICE_FEE_CONFIRM_ABOVE_UNITS = 5n;

export interface ServiceFee {
  percent: string;
  payer: FeePayer;
}

export const DEFAULT_SERVICE_FEE: ServiceFee = { percent: '0', payer: 'merchant' };

/** An ISO 8601 moment with a zone; defaults to now; refused when already past. */
export function parseValidFrom(
  text: string | undefined,
  clock: Clock,
  pastCode: 'service_fee_valid_from_in_past' | 'invoice_fee_valid_from_in_past' | 'payout_fee_valid_from_in_past',
): string {
  const now = clock.now();
  if (text === undefined) return now.toISOString();
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ||
    Number.isNaN(Date.parse(text))
  ) {
    throw new AppError(
      'invalid_argument',
      `--valid-from must be an ISO 8601 date-time with a zone, e.g. 2026-03-01T00:00:00Z; got "${text}"`,
    );
  }
  const at = new Date(text);
  // Date.parse rolls impossible fields over (2026-02-30 → 2026-03-02, T24:00 → next day): refuse them.
  const [, y, mo, d, h, mi] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(text) as RegExpExecArray;
  const local = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi)));
  if (
    local.getUTCFullYear() !== Number(y) ||
    local.getUTCMonth() + 1 !== Number(mo) ||
    local.getUTCDate() !== Number(d) ||
    local.getUTCHours() !== Number(h) ||
    local.getUTCMinutes() !== Number(mi)
  ) {
    throw new AppError('invalid_argument', `--valid-from ${text} is not a real date and time`);
  }
  if (at.getTime() < now.getTime()) throw new AppError(pastCode, `--valid-from ${text} has already passed`);
  return at.toISOString();
}

/** A fee of an asset (fixed receiving amount or payout fee): one dated row and its audit record. */
export interface AssetFeeRecord {
  kind: 'invoice' | 'payout';
  asset: CatalogAsset;
  amount: bigint;
  percent: string | null;
  validFrom: string;
  /** The confirmations the operator gave, kept in the audit record. */
  confirmations: Record<string, boolean>;
}

export async function recordAssetFee(
  db: Db,
  clock: Clock,
  actor: string,
  f: AssetFeeRecord,
): Promise<{ shown: string }> {
  return writeTx(db, async (trx) => {
    const row = await insertFee(trx, {
      kind: f.kind,
      merchant_id: null,
      asset: f.asset.code,
      percent: f.percent,
      amount: f.amount.toString(),
      payer: f.kind === 'payout' ? 'merchant' : null,
      valid_from: f.validFrom,
      created_at: clock.now().toISOString(),
      actor,
    });
    const shown = formatAmount(f.amount, f.asset.decimals);
    await recordAudit(trx, clock, {
      actor,
      action: `fee.${f.kind}`,
      subjectType: 'asset',
      subjectId: f.asset.code,
      details: {
        amount: shown,
        ...(f.percent === null ? {} : { percent: f.percent }),
        valid_from: f.validFrom,
        ...f.confirmations,
        fee_id: row.id,
      },
    });
    return { shown };
  });
}

export interface ServiceFeeView {
  merchant_id: string;
  percent: string;
  payer: FeePayer;
  valid_from: string;
}

export interface SetServiceFeeInput {
  percent: string;
  payer: string;
  validFrom?: string;
  confirmHighRate?: boolean;
}

export async function setServiceFee(
  db: Db,
  clock: Clock,
  actor: string,
  merchantId: string,
  input: SetServiceFeeInput,
): Promise<ServiceFeeView> {
  let percent: string;
  try {
    percent = parsePercent(input.percent);
  } catch (e) {
    throw new AppError('invalid_argument', `--percent ${(e as AmountError).message}`);
  }
  if (!percentAbove('100', percent)) throw new AppError('invalid_argument', '--percent must be below 100');
  if (input.payer !== 'merchant' && input.payer !== 'customer')
    throw new AppError('invalid_argument', '--payer must be merchant or customer');
  const payer: FeePayer = input.payer;
  if (percentAbove(percent, SERVICE_FEE_CONFIRM_ABOVE_PERCENT) && !input.confirmHighRate) {
    throw new AppError(
      'service_fee_confirmation_required',
      `A service fee above ${SERVICE_FEE_CONFIRM_ABOVE_PERCENT} percent needs --confirm-high-rate`,
    );
  }
  const validFrom = parseValidFrom(input.validFrom, clock, 'service_fee_valid_from_in_past');
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    const row = await insertFee(trx, {
      kind: 'service',
      merchant_id: merchantId,
      asset: null,
      percent,
      amount: null,
      payer,
      valid_from: validFrom,
      created_at: clock.now().toISOString(),
      actor,
    });
    await recordAudit(trx, clock, {
      actor,
      action: 'fee.service',
      subjectType: 'merchant',
      subjectId: merchantId,
      merchantId,
      details: {
        percent,
        payer,
        valid_from: validFrom,
        confirm_high_rate: Boolean(input.confirmHighRate),
        fee_id: row.id,
      },
    });
    return { merchant_id: merchantId, percent, payer, valid_from: validFrom };
  });
}

export interface InvoiceFeeView {
  asset: string;
  amount: string;
  valid_from: string;
}

export interface SetInvoiceFeeInput {
  asset: string;
  amount: string;
  validFrom?: string;
  confirmHighAmount?: boolean;
}

export async function setInvoiceFee(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  input: SetInvoiceFeeInput,
): Promise<InvoiceFeeView> {
  const a = catalog.get(input.asset);
  if (!a || (a.locked.has('payments') && !a.payments)) {
    throw new AppError(
      'asset_not_supported',
      `Asset ${input.asset} is not accepted for payment, so it has no receiving amount`,
    );
  }
  let amount: bigint;
  try {
    amount = parseAmountOrZero(input.amount, a.decimals);
  } catch (e) {
    throw new AppError('invalid_argument', `--amount ${(e as AmountError).message}`);
  }
  if (amount > INVOICE_FEE_CONFIRM_ABOVE_UNITS * 10n ** BigInt(a.decimals) && !input.confirmHighAmount) {
    throw new AppError(
      'invoice_fee_confirmation_required',
      `A fixed receiving amount above ${INVOICE_FEE_CONFIRM_ABOVE_UNITS} ${a.symbol} needs --confirm-high-amount`,
    );
  }
  const validFrom = parseValidFrom(input.validFrom, clock, 'invoice_fee_valid_from_in_past');
  const confirmations = { confirm_high_amount: Boolean(input.confirmHighAmount) };
  const { shown } = await recordAssetFee(db, clock, actor, {
    kind: 'invoice',
    asset: a,
    amount,
    percent: null,
    validFrom,
    confirmations,
  });
  return { asset: a.code, amount: shown, valid_from: validFrom };
}

export async function serviceFeeAt(db: Executor, merchantId: string, at: string): Promise<ServiceFee> {
  return serviceFeeOf(await feeInForce(db, { kind: 'service', merchantId }, at));
}

/** The fixed receiving amount of an asset at `at`, in base units. */
export async function invoiceFeeAt(db: Executor, asset: string, at: string): Promise<bigint> {
  return fixedAmountOf(await feeInForce(db, { kind: 'invoice', asset }, at));
}

/** serviceFeeAt and invoiceFeeAt in one statement (an invoice's creation needs both). */
export async function invoiceFeesAt(
  db: Executor,
  merchantId: string,
  asset: string,
  at: string,
): Promise<{ service: ServiceFee; fixed: bigint }> {
  const rows = await feesInForce(
    db,
    [
      { kind: 'service', merchantId },
      { kind: 'invoice', asset },
    ],
    at,
  );
  return {
    service: serviceFeeOf(rows.find((r) => r.kind === 'service')),
    fixed: fixedAmountOf(rows.find((r) => r.kind === 'invoice')),
  };
}

function serviceFeeOf(row: FeeRow | undefined): ServiceFee {
  return row ? { percent: row.percent ?? '0', payer: row.payer ?? 'merchant' } : DEFAULT_SERVICE_FEE;
}

function fixedAmountOf(row: FeeRow | undefined): bigint {
  return row?.amount ? BigInt(row.amount) : 0n;
}

export interface InvoiceAmounts {
  payer: FeePayer;
  percent: string;
  fixed: bigint;
  fee: bigint;
  expected: bigint;
}

/**
 * fee = percent of the requested amount (rounded up to the base unit) + the fixed receiving amount;
 * the customer sends requested + fee when the customer pays it (docs/adr/0015-fees-and-rounding.md).
 */
export function invoiceAmounts(requested: bigint, service: ServiceFee, fixed: bigint): InvoiceAmounts {
  const fee = percentOf(requested, service.percent) + fixed;
  return {
    payer: service.payer,
    percent: service.percent,
    fixed,
    fee,
    expected: service.payer === 'customer' ? requested + fee : requested,
  };
}
