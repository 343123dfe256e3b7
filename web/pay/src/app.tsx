// The payment page: who asks for how much, the choice of a token, then the payment itself.
import { useState } from 'preact/hooks';
import { chooseAsset, explain } from './api.js';
import { useLiveInvoice } from './live.js';
import { formatMoney, formatPrice, less, token } from '../../shared/money.js';
import { Payment } from './payment.js';
import type { PayView } from './types.js';
import { Countdown } from './widgets.js';

const locale = () => document.documentElement.lang || 'en';

function price(view: PayView): string {
  return formatPrice(view.price, view.price_currency, locale());
}

function Summary({ view }: { view: PayView }) {
  return (
    <header class="summary">
      <p class="merchant">{view.merchant_name}</p>
      <h1>
        <span class="sr-only">Pay </span>
        <span class="price">{price(view)}</span>
      </h1>
      {view.description ? <p class="description">{view.description}</p> : null}
    </header>
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
  if (view.status === 'expired')
    return (
      <section class="payment" aria-labelledby="choose-title">
        <h2 id="choose-title">This invoice has expired</h2>
        <div class="state muted">
          <p>No token was chosen in time, so it can no longer be paid.</p>
          {view.cancel_url ? (
            <p>
              <a class="button" href={view.cancel_url} rel="noreferrer">
                Return to {view.merchant_name}
              </a>
            </p>
          ) : null}
        </div>
      </section>
    );
  return (
    <section class="choice" aria-labelledby="choose-title">
      <h2 id="choose-title">Choose a token to pay with</h2>
      <p class="hint">All are dollar stablecoins on the TRON network. The choice is final for this invoice.</p>
      <ul class="tokens">
        {view.offered.map((o) => {
          const { symbol, standard, chain } = token(o.asset);
          return (
            <li key={o.asset}>
              <button type="button" class="token" disabled={busy !== null} onClick={() => void choose(o.asset)}>
                <span class="symbol">{symbol}</span>
                <span class="network">
                  {standard} on {chain}
                </span>
                <span class="amount">
                  {formatMoney(o.amount, 0, locale())} {symbol}
                  {less(view.price, o.amount) ? <span class="fee"> incl. service fee</span> : null}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      <Countdown deadline={view.expires_at} onEnd={onDeadline} />
    </section>
  );
}

function Failure({ text }: { text: string }) {
  return (
    <>
      <h1>Payment</h1>
      <p class="error" role="alert">
        {text}
      </p>
    </>
  );
}

export function App({ id }: { id: string }) {
  const live = useLiveInvoice(id);
  const { view, error } = live;
  // Kept here, not in the choice: after a refusal the page may show the payment instead.
  const [refusal, setRefusal] = useState<string | null>(null);
  if (!view)
    return error ? (
      <Failure text={explain(error)} />
    ) : (
      <>
        <h1>Payment</h1>
        <p>Loading the invoice…</p>
      </>
    );
  document.title = `Pay ${view.merchant_name}`;
  const chosen = (next: PayView) => {
    live.update(next);
    // Keyboard and screen-reader users continue where the payment's details begin.
    window.setTimeout(() => document.getElementById('pay-title')?.focus(), 0);
  };
  return (
    <>
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
