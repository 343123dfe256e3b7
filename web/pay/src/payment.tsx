// After the choice: where and how much to send, and the status as it changes.
import { useEffect, useRef } from 'preact/hooks';
import { formatMoney, isZero, less, subtract, token } from '../../shared/money.js';

const grouped = (amount: string) => formatMoney(amount, 0, document.documentElement.lang || 'en');
import { QrCode } from './qr.js';
import type { PayView } from './types.js';
import { CopyButton, Countdown, announce } from './widgets.js';

/** The statuses in which sending (more) money to the address is what the customer should do. */
const AWAITING = new Set(['created', 'seen']);

/** One line that names the status; the screen reader hears it each time it changes. */
function headline(view: PayView): { text: string; tone: string } {
  switch (view.status) {
    case 'created':
      return { text: 'Waiting for your payment', tone: 'wait' };
    case 'seen':
      return { text: 'Payment seen: waiting for confirmations', tone: 'info' };
    case 'confirmed':
    case 'settled':
      return { text: 'Paid', tone: 'good' };
    case 'underpaid':
      return { text: 'Not paid in full', tone: 'warn' };
    case 'expired':
      return { text: 'This invoice has expired', tone: 'muted' };
    case 'paid_late':
      return { text: 'Paid after the deadline', tone: 'warn' };
  }
}

function Back({ href, children }: { href: string | null; children: string }) {
  return href ? (
    <p>
      <a class="button" href={href} rel="noreferrer">
        {children}
      </a>
    </p>
  ) : null;
}

/** What the status means for the customer, and what to do next. */
function Explanation({ view, symbol }: { view: PayView; symbol: string }) {
  const expected = view.amount_expected ?? '0';
  const received = view.amount_received ?? '0';
  const missing = less(received, expected) ? subtract(expected, received) : null;
  const confirmations = view.deposits.reduce((most, d) => Math.max(most, d.confirmations), 0);
  switch (view.status) {
    case 'created':
      return <p>Send the amount below to the address below. This page updates by itself once the payment is seen.</p>;
    case 'seen':
      return (
        <>
          <p>
            Your payment is on the network with {confirmations} confirmation{confirmations === 1 ? '' : 's'} so far. It
            counts as paid once the network has confirmed it; you can leave this page open.
          </p>
          {missing && !isZero(received) ? (
            <p class="missing">
              Received {grouped(received)} {symbol} of {grouped(expected)} {symbol}:{' '}
              <strong>
                send the missing {grouped(missing)} {symbol}
              </strong>{' '}
              to the same address before the time is up.
            </p>
          ) : null}
        </>
      );
    case 'confirmed':
    case 'settled':
      return (
        <>
          <p>
            {view.merchant_name} has received {grouped(received)} {symbol}. Thank you!
          </p>
          <Back href={view.return_url}>{`Return to ${view.merchant_name}`}</Back>
        </>
      );
    case 'underpaid':
      return (
        <>
          <p>
            The time to pay ended with {grouped(received)} {symbol} of {grouped(expected)} {symbol} received:{' '}
            <strong>
              {grouped(missing ?? '0')} {symbol} is missing
            </strong>
            . Contact {view.merchant_name} about the rest before sending anything more.
          </p>
          <Back href={view.cancel_url}>{`Return to ${view.merchant_name}`}</Back>
        </>
      );
    case 'expired':
      return (
        <>
          <p>No payment arrived in time. Do not send anything to this address any more.</p>
          <Back href={view.cancel_url}>{`Return to ${view.merchant_name}`}</Back>
        </>
      );
    case 'paid_late':
      return (
        <p>
          Your payment of {grouped(received)} {symbol} arrived after the invoice expired. {view.merchant_name} will be
          in touch with you about it.
        </p>
      );
  }
}

function Transactions({ view, symbol }: { view: PayView; symbol: string }) {
  if (view.deposits.length === 0) return null;
  return (
    <section class="transactions" aria-labelledby="tx-title">
      <h3 id="tx-title">Your transactions</h3>
      <ul>
        {view.deposits.map((d) => (
          <li key={d.tx_hash}>
            <span class="amount">
              {grouped(d.amount)} {symbol}
            </span>
            <span class="confirmations">
              {d.confirmations} confirmation{d.confirmations === 1 ? '' : 's'}
            </span>
            <code class="hash">{d.tx_hash}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Payment({ view, onDeadline }: { view: PayView; onDeadline: () => void }) {
  const asset = view.asset as string;
  const { symbol, standard, chain } = token(asset);
  const status = headline(view);
  const first = useRef(true);
  useEffect(() => {
    // The first status is read with the page; each change after it is announced.
    if (first.current) first.current = false;
    else announce(status.text);
  }, [status.text]);
  const sending = AWAITING.has(view.status) && view.address !== null && view.amount_expected !== null;
  return (
    <section class="payment" aria-labelledby="pay-title">
      <h2 id="pay-title" tabIndex={-1}>
        {AWAITING.has(view.status) ? 'Pay with' : 'Payment in'} {symbol}
      </h2>
      <div class={`state ${status.tone}`}>
        <p class="headline" id="pay-status">
          {status.text}
        </p>
        <Explanation view={view} symbol={symbol} />
      </div>
      {sending ? (
        <>
          <dl class="send">
            <div>
              <dt>Amount</dt>
              <dd>
                <span class="value">
                  <code id="pay-amount">{view.amount_expected}</code> {symbol}
                </span>
                <CopyButton value={view.amount_expected as string} what="amount" />
              </dd>
            </div>
            <div>
              <dt>Address</dt>
              <dd>
                <code id="pay-address" class="address">
                  {view.address}
                </code>
                <CopyButton value={view.address as string} what="address" />
              </dd>
            </div>
          </dl>
          <p class="network">
            Send only {symbol} ({standard}) on the {chain} network, exactly this amount: any other token or network is
            lost.
          </p>
          <QrCode text={view.address as string} label={`QR code of the address ${view.address}`} />
          <Countdown deadline={view.expires_at} onEnd={onDeadline} />
        </>
      ) : null}
      <Transactions view={view} symbol={symbol} />
    </section>
  );
}
