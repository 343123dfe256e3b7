/**
 * Each merchant's review limits, set by `merchant update --payout-auto-approve-limit X
 * --payout-daily-limit X`. X is a decimal number of whole units of the payout's asset (the same
 * figure for every asset: the catalog is dollar tokens and TRX), or `none` for no limit.
 *
 * Defaults (no row): auto-approve limit 0, so every payout is reviewed until the operator decides
 * how much a merchant may send without a human look (fail closed); no daily limit.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';

export const DEFAULT_AUTO_APPROVE_LIMIT = '0';
export const NO_LIMIT = 'none';
const LIMIT_TEXT = /^(0|[1-9][0-9]{0,29})(\.[0-9]{1,30})?$/;

export interface PayoutLimits {
  /** Decimal text; null = no limit. */
  autoApproveLimit: string | null;
  dailyLimit: string | null;
}

export interface PayoutLimitsView {
  payout_auto_approve_limit: string;
  payout_daily_limit: string;
}

export function limitsView(l: PayoutLimits): PayoutLimitsView {
  return { payout_auto_approve_limit: l.autoApproveLimit ?? NO_LIMIT, payout_daily_limit: l.dailyLimit ?? NO_LIMIT };
}

/** "1000", "12.50" → normalised decimal text; "none" → null. */
export function parseLimit(flag: string, text: string): string | null {
  if (text === NO_LIMIT) return null;
  if (!LIMIT_TEXT.test(text))
    throw new AppError(
      'invalid_argument',
      `${flag} must be a plain decimal amount such as 1000 or 250.5, or "${NO_LIMIT}"; got "${text}"`,
    );
  const [w, f = ''] = text.split('.');
  const frac = f.replace(/0+$/, '');
  return frac ? `${w}.${frac}` : (w as string);
}

/** units (base units at `decimals`) > limit (decimal text), exactly, without floating point. */
export function exceedsLimit(units: bigint, decimals: number, limit: string): boolean {
  const [w, f = ''] = limit.split('.');
  const limitScaled = BigInt(`${w}${f}`); // limit × 10^f.length
  return units * 10n ** BigInt(f.length) > limitScaled * 10n ** BigInt(decimals);
}

export async function payoutLimits(db: Executor, merchantId: string): Promise<PayoutLimits> {
  const row = await db
    .selectFrom('merchant_payout_limits')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!row) return { autoApproveLimit: DEFAULT_AUTO_APPROVE_LIMIT, dailyLimit: null };
  return { autoApproveLimit: row.auto_approve_limit, dailyLimit: row.daily_limit };
}

export interface LimitsInput {
  autoApproveLimit?: string | undefined;
  dailyLimit?: string | undefined;
}

/** Parses the flags up front so a bad value writes nothing. */
export function parseLimitsInput(input: LimitsInput): Partial<PayoutLimits> {
  const out: Partial<PayoutLimits> = {};
  if (input.autoApproveLimit !== undefined)
    out.autoApproveLimit = parseLimit('--payout-auto-approve-limit', input.autoApproveLimit);
  if (input.dailyLimit !== undefined) out.dailyLimit = parseLimit('--payout-daily-limit', input.dailyLimit);
  return out;
}

export async function setPayoutLimits(
  db: Db,
  clock: Clock,
  actor: string,
  merchantId: string,
  patch: Partial<PayoutLimits>,
): Promise<PayoutLimitsView> {
  return writeTx(db, async (trx) => {
    await requireMerchant(trx, merchantId);
    const next = { ...(await payoutLimits(trx, merchantId)), ...patch };
    const updatedAt = clock.now().toISOString();
    await trx
      .insertInto('merchant_payout_limits')
      .values({
        merchant_id: merchantId,
        auto_approve_limit: next.autoApproveLimit,
        daily_limit: next.dailyLimit,
        updated_at: updatedAt,
      })
      .onConflict((oc) =>
        oc.column('merchant_id').doUpdateSet({
          auto_approve_limit: next.autoApproveLimit,
          daily_limit: next.dailyLimit,
          updated_at: updatedAt,
        }),
      )
      .execute();
    const view = limitsView(next);
    await recordAudit(trx, clock, {
      actor,
      action: 'merchant.payout_limits',
      subjectType: 'merchant',
      subjectId: merchantId,
      merchantId,
      details: { ...view },
    });
    return view;
  });
}
