/**
 * What causes mail, wired once when this module loads: the listeners run in the transaction of
 * the state change (an event recorded, an exception opened), so a mail is queued exactly when its
 * cause commits. The features that cause mail know nothing of mail: they only call their
 * listeners. Which mail, and whether any, is this process's configuration (`useMail`): without
 * SMTP_URL and MAIL_FROM nothing is queued, so turning mail on later sends nothing from before.
 */
import type { Clock } from '../clock.js';
import { cabinetUrl, type Config } from '../config.js';
import type { Tx } from '../db/database.js';
import { onExceptionOpened, type ExceptionRow } from '../exceptions/store.js';
import { formatUnits } from '../money.js';
import { languageNamed } from '../pay/languages.js';
import { onEventRecorded, type NewEvent } from '../webhooks/outbox.js';
import { exceptionMail, payoutInReviewMail, receiptMail, refundClaimMail, type RenderedMail } from './messages.js';
import { queueMail } from './outbox.js';
import { findMerchant } from '../merchants/store.js';
import { findReceiptEmail } from '../pay/store.js';
import { orderIdOf, ownersToTell } from './store.js';

interface MailSettings {
  cabinetUrl: string;
}

let settings: MailSettings | null = null;

/**
 * Sets whether this process queues mail, from its configuration: `buildApp` and every CLI command
 * call it, as both read the same environment.
 */
export function useMail(config: Config): void {
  settings = config.mail ? { cabinetUrl: cabinetUrl(config).replace(/\/+$/, '') } : null;
}

/** The exceptions an owner sees (the operator's own kinds are not mailed to owners). */
const OWNER_KINDS = new Set(['underpaid', 'overpaid', 'paid_late', 'foreign_asset']);

async function onEvent(trx: Tx, clock: Clock, e: NewEvent): Promise<void> {
  if (!settings) return;
  if (e.type === 'invoice.confirmed') await receipt(trx, clock, e);
  else if (e.type === 'refund.created') await refundClaim(trx, clock, e);
  else if (e.type === 'payout.pending_review') await payoutInReview(trx, clock, settings, e);
}

/** The customer who left an address on the payment page: the receipt, once the invoice is paid. */
async function receipt(trx: Tx, clock: Clock, e: NewEvent): Promise<void> {
  const customer = await findReceiptEmail(trx, e.subjectId);
  if (!customer) return;
  const language = languageNamed(customer.language) ?? 'en';
  const d = e.data as { order_id: string | null; amount_received: string; asset: string };
  await queueMail(trx, clock, {
    kind: 'receipt',
    merchantId: e.merchantId,
    recipient: customer.email,
    language,
    key: `receipt:${e.subjectId}`,
    mail: receiptMail(language, {
      merchant: await merchantName(trx, e.merchantId),
      orderId: d.order_id,
      invoiceId: e.subjectId,
      amount: d.amount_received,
      asset: d.asset,
      paidAt: clock.now().toISOString(),
    }),
  });
}

/** The same customer: the claim link of a refund of their invoice. */
async function refundClaim(trx: Tx, clock: Clock, e: NewEvent): Promise<void> {
  const d = e.data as {
    refund_id: string;
    invoice_id: string;
    amount: string;
    asset: string;
    claim_url: string;
    expires_at: string;
  };
  const customer = await findReceiptEmail(trx, d.invoice_id);
  if (!customer) return;
  const language = languageNamed(customer.language) ?? 'en';
  await queueMail(trx, clock, {
    kind: 'refund_claim',
    merchantId: e.merchantId,
    recipient: customer.email,
    language,
    key: `refund_claim:${d.refund_id}`,
    mail: refundClaimMail(language, {
      merchant: await merchantName(trx, e.merchantId),
      orderId: await orderIdOf(trx, d.invoice_id),
      amount: d.amount,
      asset: d.asset,
      claimUrl: d.claim_url,
      expiresAt: d.expires_at,
    }),
  });
}

async function payoutInReview(trx: Tx, clock: Clock, s: MailSettings, e: NewEvent): Promise<void> {
  const d = e.data as {
    payout_id: string;
    amount: string;
    asset: string;
    to_address: string;
    review_reasons: string[];
  };
  const owners = await ownersToTell(trx, e.merchantId, 'payouts_in_review');
  if (owners.length === 0) return;
  const mail = payoutInReviewMail({
    merchant: await merchantName(trx, e.merchantId),
    payoutId: d.payout_id,
    amount: d.amount,
    asset: d.asset,
    toAddress: d.to_address,
    reasons: d.review_reasons,
    cabinetUrl: s.cabinetUrl,
  });
  await tellOwners(trx, clock, owners, {
    kind: 'payout_in_review',
    merchantId: e.merchantId,
    cause: d.payout_id,
    mail,
  });
}

async function onException(trx: Tx, clock: Clock, row: ExceptionRow): Promise<void> {
  if (!settings || row.merchant_id === null || !OWNER_KINDS.has(row.kind)) return;
  const owners = await ownersToTell(trx, row.merchant_id, 'exceptions');
  if (owners.length === 0) return;
  const mail = exceptionMail({
    merchant: await merchantName(trx, row.merchant_id),
    kind: row.kind,
    invoiceId: row.invoice_id,
    orderId: row.invoice_id ? await orderIdOf(trx, row.invoice_id) : null,
    amount: formatUnits(row.amount, row.decimals),
    asset: row.asset,
    cabinetUrl: settings.cabinetUrl,
  });
  await tellOwners(trx, clock, owners, { kind: 'exception', merchantId: row.merchant_id, cause: row.id, mail });
}

/** One notice per owner, in English (the cabinet's language), keyed by its cause and its owner. */
async function tellOwners(
  trx: Tx,
  clock: Clock,
  owners: { owner_id: string; email: string }[],
  n: { kind: 'payout_in_review' | 'exception'; merchantId: string; cause: string; mail: RenderedMail },
): Promise<void> {
  for (const o of owners)
    await queueMail(trx, clock, {
      kind: n.kind,
      merchantId: n.merchantId,
      recipient: o.email,
      language: 'en',
      key: `${n.kind}:${n.cause}:${o.owner_id}`,
      mail: n.mail,
    });
}

onEventRecorded(onEvent);
onExceptionOpened(onException);

/** The merchant's name as owners and customers know it (its id if it is gone). */
async function merchantName(trx: Tx, merchantId: string): Promise<string> {
  return (await findMerchant(trx, merchantId))?.name ?? merchantId;
}
