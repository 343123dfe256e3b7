// The payment page: who asks for how much, the choice of a token, then the payment itself, in the
// customer's language.
import { useState } from 'preact/hooks';
import { formatPrice, less, token } from '../../shared/money.js';
import { chooseAsset, serverNow, explain } from './api.js';
import { LanguagePicker } from './language.js';
import { locale, t } from './i18n.js';
import { useLiveInvoice } from './live.js';
import { Payment, money } from './payment.js';
import type { PayView } from './types.js';
import { Countdown } from './widgets.js';

function Summary({ view }: { view: PayView }) {
  return (
    <header class="summary">
      <p class="merchant">{view.merchant_name}</p>
      <h1>
        <span class="sr-only">{t('summary.pay')} </span>
        <span class="price">{formatPrice(view.price, view.price_currency, locale())}</span>
      </h1>
      {view.description ? <p class="description">{view.description}</p> : null}
    </header>
  );
}

function CancelLink({ view }: { view: PayView }) {
  return view.cancel_url ? (
    <p class="cancel">
      <a href={view.cancel_url} rel="noreferrer">
        {t('choice.cancel', { merchant: view.merchant_name })}
      </a>
    </p>
  ) : null;
}

/** Past the term, or too close to it for a payment to arrive: no token can be chosen. */
function Closed({ view }: { view: PayView }) {
  const expired = view.status === 'expired';
  return (
    <section class="payment" aria-labelledby="choose-title">
      <h2 id="choose-title">{expired ? t('status.expired') : t('choice.closed_title')}</h2>
      <div class="state muted">
        <p>{expired ? t('choice.expired') : t('choice.closed', { merchant: view.merchant_name })}</p>
        {view.cancel_url ? (
          <p>
            <a class="button" href={view.cancel_url} rel="noreferrer">
              {t('action.return', { merchant: view.merchant_name })}
            </a>
          </p>
        ) : null}
      </div>
    </section>
  );
}

/** One button per offered token; the choice is final, so the page says so before it. */
function Choice({
  view,
  onChosen,
  onRefused,
  onDeadline,
}: {
  view: PayView;
  onDeadline: () => void;
  onChosen: (view: PayView) => void;
  /** The refusal in words; the invoice may have changed meanwhile (chosen elsewhere, expired). */
  onRefused: (text: string | null) => void;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  // Re-rendered each second by the countdown's end and each poll: past choose_by the buttons go.
  const [late, setLate] = useState(false);
  const choose = async (asset: string) => {
    setBusy(asset);
    onRefused(null);
    try {
      onChosen(await chooseAsset(view.invoice_id, asset));
    } catch (e) {
      onRefused(explain(e, token(asset).symbol));
    } finally {
      setBusy(null);
    }
  };
  if (view.status === 'expired' || late || Date.parse(view.choose_by) <= serverNow()) return <Closed view={view} />;
  return (
    <section class="choice" aria-labelledby="choose-title">
      <h2 id="choose-title">{t('choice.title')}</h2>
      <p class="hint">{t('choice.hint')}</p>
      <ul class="tokens">
        {view.offered.map((o) => {
          const { symbol, standard, chain } = token(o.asset);
          return (
            <li key={o.asset}>
              <button type="button" class="token" disabled={busy !== null} onClick={() => void choose(o.asset)}>
                <span class="symbol">{symbol}</span>
                <span class="network">{t('choice.network', { standard, chain })}</span>
                <span class="amount">
                  {money(o.amount)} {symbol}
                  {less(view.price, o.amount) ? <span class="fee"> {t('choice.fee')}</span> : null}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      <Countdown
        deadline={view.choose_by}
        label={t('countdown.choose')}
        onEnd={() => {
          setLate(true);
          onDeadline();
        }}
      />
      <CancelLink view={view} />
    </section>
  );
}

function Failure({ text }: { text: string }) {
  return (
    <>
      <h1>{t('page.title')}</h1>
      <p class="error" role="alert">
        {text}
      </p>
    </>
  );
}

export function App({ id }: { id: string }) {
  const live = useLiveInvoice(id);
  const { view, error } = live;
  // The language lives here: a change re-renders the whole page in it.
  const [, setLang] = useState(locale());
  // Kept here, not in the choice: after a refusal the page may show the payment instead.
  const [refusal, setRefusal] = useState<string | null>(null);
  const picker = <LanguagePicker onChange={setLang} />;
  if (!view)
    return error ? (
      <>
        {picker}
        <Failure text={explain(error)} />
      </>
    ) : (
      <>
        {picker}
        <h1>{t('page.title')}</h1>
        <p>{t('page.loading')}</p>
      </>
    );
  document.title = t('page.title_of', { merchant: view.merchant_name });
  const chosen = (next: PayView) => {
    live.update(next);
    // Keyboard and screen-reader users continue where the payment's details begin.
    window.setTimeout(() => document.getElementById('pay-title')?.focus(), 0);
  };
  return (
    <>
      {picker}
      <Summary view={view} />
      {error ? (
        <p class="error" role="alert">
          {explain(error)}
        </p>
      ) : null}
      {refusal ? (
        <p class="error" role="alert" id="refusal">
          {refusal}
        </p>
      ) : null}
      {view.asset === null ? (
        <Choice
          view={view}
          onChosen={chosen}
          onDeadline={live.refresh}
          onRefused={(text) => {
            setRefusal(text);
            if (text) live.refresh();
          }}
        />
      ) : (
        <Payment view={view} onDeadline={live.refresh} />
      )}
    </>
  );
}
