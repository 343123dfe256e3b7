// After the choice: where and how much to send, and the status as it changes. What the page asks
// the customer to send is always the amount still due, never the original one.
import { useEffect, useRef } from 'preact/hooks';
import { formatMoney, isZero, token } from '../../shared/money.js';
import { locale, t, tn } from './i18n.js';
import { ReceiptEmail } from './email.js';
import { QrCode } from './qr.js';
import type { PayView } from './types.js';
import { CopyButton, Countdown, announce } from './widgets.js';

/** The statuses in which sending (more) money to the address is what the customer should do. */
const AWAITING = new Set(['created', 'seen']);
/** Paid: the receipt exists. */
const PAID = new Set(['confirmed', 'settled', 'paid_late']);

function ReceiptLink({ view }: { view: PayView }) {
  return (
    <p class="receipt-link">
      <a href={`/pay/${encodeURIComponent(view.invoice_id)}/receipt`}>{t('receipt.link')}</a>
    </p>
  );
}

/** An amount in the page's locale, every digit the service gave. */
export const money = (amount: string) => formatMoney(amount, 0, locale());

const received = (view: PayView) => view.amount_received ?? '0';
const due = (view: PayView) => view.amount_due ?? view.amount_expected ?? '0';

/** Part of the amount arrived and the rest is still to send. */
const partPaid = (view: PayView) => !isZero(received(view)) && !isZero(due(view));

/** One line that names the status; the screen reader hears it each time it changes. */
function headline(view: PayView): { text: string; tone: string } {
  switch (view.status) {
    case 'created':
      return { text: t('status.created'), tone: 'wait' };
    case 'seen':
      if (isZero(due(view))) return { text: t('status.seen_full'), tone: 'info' };
      return { text: t('status.seen_part'), tone: 'warn' };
    case 'confirmed':
    case 'settled':
      return { text: t('status.paid'), tone: 'good' };
    case 'underpaid':
      return { text: t('status.underpaid'), tone: 'warn' };
    case 'expired':
      return { text: t('status.expired'), tone: 'muted' };
    case 'paid_late':
      return { text: t('status.paid_late'), tone: 'warn' };
  }
}

function Back({ href, merchant }: { href: string | null; merchant: string }) {
  return href ? (
    <p>
      <a class="button" href={href} rel="noreferrer">
        {t('action.return', { merchant })}
      </a>
    </p>
  ) : null;
}

const confirmationsOf = (view: PayView) => view.deposits.reduce((most, d) => Math.max(most, d.confirmations), 0);

/** What the status means for the customer, and what to do next. */
function Explanation({ view, symbol }: { view: PayView; symbol: string }) {
  const merchant = view.merchant_name;
  const amounts = {
    received: money(received(view)),
    expected: money(view.amount_expected ?? '0'),
    due: money(due(view)),
    overpaid: money(view.amount_overpaid ?? '0'),
    symbol,
    merchant,
  };
  switch (view.status) {
    case 'created':
      return partPaid(view) ? <p class="missing">{t('explain.part', amounts)}</p> : <p>{t('explain.created')}</p>;
    case 'seen':
      // Part of it: what to send is all that matters; the whole of it: only confirmations are awaited.
      return partPaid(view) ? (
        <p class="missing">{t('explain.part', amounts)}</p>
      ) : (
        <p>{tn('explain.seen', confirmationsOf(view))}</p>
      );
    case 'confirmed':
    case 'settled':
      return (
        <>
          <p>{t('explain.paid', amounts)}</p>
          {isZero(view.amount_overpaid ?? '0') ? null : (
            <p class="overpaid">
              <strong>{t('explain.overpaid', amounts)}</strong> {t('explain.overpaid_refund', amounts)}
            </p>
          )}
          <Back href={view.return_url} merchant={merchant} />
        </>
      );
    case 'underpaid':
      return (
        <>
          <p>
            {t('explain.underpaid', amounts)} <strong>{t('explain.underpaid_missing', amounts)}</strong>{' '}
            {t('explain.underpaid_contact', amounts)}
          </p>
          <Back href={view.cancel_url} merchant={merchant} />
        </>
      );
    case 'expired':
      return (
        <>
          <p>
            {t('explain.expired')}{' '}
            {view.address_permanent ? t('explain.expired_permanent', amounts) : t('explain.expired_stop')}
          </p>
          <Back href={view.cancel_url} merchant={merchant} />
        </>
      );
    case 'paid_late':
      return <p>{t('explain.paid_late', amounts)}</p>;
  }
}

/** Another token sent to the address: it does not pay this invoice, and the merchant sees it. */
function ForeignDeposits({ view, symbol }: { view: PayView; symbol: string }) {
  if (view.foreign_deposits.length === 0) return null;
  return (
    <div class="state warn foreign" role="note">
      {view.foreign_deposits.map((d) => (
        <p key={d.tx_hash}>
          <strong>{t('foreign.arrived', { amount: money(d.amount), token: token(d.asset).symbol, symbol })}</strong>{' '}
          {t('foreign.explain', { token: token(d.asset).symbol, symbol, merchant: view.merchant_name })}
        </p>
      ))}
    </div>
  );
}

function Transactions({ view, symbol }: { view: PayView; symbol: string }) {
  if (view.deposits.length === 0) return null;
  return (
    <section class="transactions" aria-labelledby="tx-title">
      <h3 id="tx-title">{t('transactions.title')}</h3>
      <ul>
        {view.deposits.map((d) => (
          <li key={d.tx_hash}>
            <span class="amount">
              {money(d.amount)} {symbol}
            </span>
            <span class="confirmations">{tn('transactions.confirmations', d.confirmations)}</span>
            <code class="hash">{d.tx_hash}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Where and how much to send: the amount due, the address, copy buttons, the QR code, the time left. */
function SendInstructions({ view, onDeadline }: { view: PayView; onDeadline: () => void }) {
  const { symbol, standard, chain } = token(view.asset as string);
  const amount = due(view);
  return (
    <>
      <dl class="send">
        <div>
          <dt>{partPaid(view) ? t('send.amount_due') : t('send.amount')}</dt>
          <dd>
            <span class="value">
              <code id="pay-amount">{amount}</code> {symbol}
            </span>
            <CopyButton value={amount} what={t('copy.what_amount')} />
          </dd>
        </div>
        <div>
          <dt>{t('send.address')}</dt>
          <dd>
            <code id="pay-address" class="address">
              {view.address}
            </code>
            <CopyButton value={view.address as string} what={t('copy.what_address')} />
          </dd>
        </div>
      </dl>
      <p class="network">{t('send.only', { symbol, standard, chain })}</p>
      {view.address_permanent ? <p class="network">{t('send.permanent', { merchant: view.merchant_name })}</p> : null}
      <QrCode text={view.address as string} label={t('send.qr', { address: view.address as string })} />
      <Countdown deadline={view.expires_at} onEnd={onDeadline} label={t('countdown.pay')} />
    </>
  );
}

export function Payment({ view, onDeadline }: { view: PayView; onDeadline: () => void }) {
  const { symbol } = token(view.asset as string);
  const status = headline(view);
  const first = useRef(true);
  useEffect(() => {
    // The first status is read with the page; each change after it is announced.
    if (first.current) first.current = false;
    else announce(status.text);
  }, [status.text]);
  // Nothing to send once the whole amount is on the network: only confirmations are awaited.
  const sending = AWAITING.has(view.status) && view.address !== null && !isZero(due(view));
  return (
    <section class="payment" aria-labelledby="pay-title">
      <h2 id="pay-title" tabIndex={-1}>
        {sending ? t('pay.title_with', { symbol }) : t('pay.title_in', { symbol })}
      </h2>
      <div class={`state ${status.tone}`}>
        <p class="headline" id="pay-status">
          {status.text}
        </p>
        <Explanation view={view} symbol={symbol} />
      </div>
      <ForeignDeposits view={view} symbol={symbol} />
      {PAID.has(view.status) ? <ReceiptLink view={view} /> : null}
      {sending ? <SendInstructions view={view} onDeadline={onDeadline} /> : null}
      <Transactions view={view} symbol={symbol} />
      {AWAITING.has(view.status) || PAID.has(view.status) ? (
        <ReceiptEmail invoiceId={view.invoice_id} paid={PAID.has(view.status)} />
      ) : null}
    </section>
  );
}
