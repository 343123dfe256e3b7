// The receipt of a paid invoice (/pay/{invoice_id}/receipt): printable, in the customer's language,
// each transaction linked to the explorer of the chain (none on the devnet).
import { useEffect, useState } from 'preact/hooks';
import { formatPrice, token } from '../../shared/money.js';
import { explain, readReceipt } from './api.js';
import { locale, t } from './i18n.js';
import { LanguagePicker } from './language.js';
import { money } from './payment.js';
import type { ReceiptView } from './types.js';

/** A moment in the page's language, with the time zone, so a printed receipt is unambiguous. */
export const when = (iso: string) =>
  new Intl.DateTimeFormat(locale(), { dateStyle: 'long', timeStyle: 'long' }).format(new Date(iso));

function Receipt({ receipt }: { receipt: ReceiptView }) {
  const { symbol, standard, chain } = token(receipt.asset);
  return (
    <article class="receipt" aria-labelledby="receipt-title">
      <header class="summary">
        <p class="merchant">{receipt.merchant_name}</p>
        <h1 id="receipt-title">{t('receipt.title')}</h1>
      </header>
      <dl class="facts">
        <div>
          <dt>{t('receipt.merchant')}</dt>
          <dd>{receipt.merchant_name}</dd>
        </div>
        <div>
          <dt>{t('receipt.order')}</dt>
          <dd>
            <code>{receipt.order_id}</code>
          </dd>
        </div>
        {receipt.description ? (
          <div>
            <dt>{t('receipt.description')}</dt>
            <dd>{receipt.description}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t('receipt.price')}</dt>
          <dd>{formatPrice(receipt.price, receipt.price_currency, locale())}</dd>
        </div>
        <div>
          <dt>{t('receipt.paid')}</dt>
          <dd id="receipt-amount">
            {money(receipt.amount_paid)} {symbol}{' '}
            <span class="muted-text">({t('choice.network', { standard, chain })})</span>
          </dd>
        </div>
        <div>
          <dt>{t('receipt.paid_at')}</dt>
          <dd>
            <time dateTime={receipt.paid_at}>{when(receipt.paid_at)}</time>
            {receipt.status === 'paid_late' ? <span class="late"> ({t('status.paid_late')})</span> : null}
          </dd>
        </div>
        <div>
          <dt>{t('receipt.invoice')}</dt>
          <dd>
            <code class="hash">{receipt.invoice_id}</code>
          </dd>
        </div>
      </dl>
      <section class="transactions" aria-labelledby="tx-title">
        <h2 id="tx-title">{t('transactions.title')}</h2>
        <ul>
          {receipt.transactions.map((tx) => (
            <li key={tx.tx_hash}>
              <span class="amount">
                {money(tx.amount)} {symbol}
              </span>{' '}
              <time dateTime={tx.at}>{when(tx.at)}</time>
              {tx.explorer_url ? (
                <a class="hash" href={tx.explorer_url} rel="noreferrer" target="_blank">
                  <code>{tx.tx_hash}</code>
                  <span class="sr-only"> {t('receipt.explorer')}</span>
                </a>
              ) : (
                <code class="hash">{tx.tx_hash}</code>
              )}
            </li>
          ))}
        </ul>
      </section>
      <p class="actions no-print">
        <button type="button" class="button" onClick={() => window.print()}>
          {t('receipt.print')}
        </button>{' '}
        <a href={`/pay/${encodeURIComponent(receipt.invoice_id)}`}>{t('receipt.back')}</a>
      </p>
    </article>
  );
}

export function ReceiptPage({ id }: { id: string }) {
  const [receipt, setReceipt] = useState<ReceiptView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [, setLang] = useState(locale());
  useEffect(() => {
    readReceipt(id).then(setReceipt, setError);
  }, [id]);
  const picker = <LanguagePicker onChange={setLang} />;
  if (receipt) document.title = t('receipt.title_of', { merchant: receipt.merchant_name });
  return (
    <>
      {picker}
      {receipt ? (
        <Receipt receipt={receipt} />
      ) : error ? (
        <>
          <h1>{t('receipt.title')}</h1>
          <p class="error" role="alert">
            {explain(error)}
          </p>
        </>
      ) : (
        <>
          <h1>{t('receipt.title')}</h1>
          <p>{t('receipt.loading')}</p>
        </>
      )}
    </>
  );
}
