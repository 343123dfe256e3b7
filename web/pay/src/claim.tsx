// A refund's claim page (/pay/refund/{refund_id}): the amount and token the merchant sends back, a
// form for the customer's TRON address, then the refund's state, in the customer's language. The
// service's refusals are said as a customer needs them: what is wrong and what to do.
import { useEffect, useState } from 'preact/hooks';
import { token } from '../../shared/money.js';
import { ApiError, explain, giveAddress, readClaim } from './api.js';
import { locale, t } from './i18n.js';
import { LanguagePicker } from './language.js';
import { money } from './payment.js';
import { when } from './receipt.js';
import type { ClaimView } from './types.js';
import { announce } from './widgets.js';

/** A TRON address as a wallet shows it: T and 33 more base58 characters (the service checks the rest). */
const LOOKS_LIKE_TRON = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

function refusal(error: unknown, merchant: string): string {
  if (!(error instanceof ApiError)) return t('error.page');
  switch (error.code) {
    case 'validation_failed':
      return t('refund.error.invalid_address');
    case 'refund_address_not_allowed':
      return t('refund.error.not_allowed');
    case 'refund_address_already_set':
      return t('refund.error.already_set');
    case 'refund_not_claimable':
      return t('refund.error.not_claimable');
    case 'refund_not_found':
      return t('refund.error.not_found');
    case 'reference_conflict':
      return t('refund.error.conflict', { merchant });
    default:
      return explain(error);
  }
}

function AddressForm({ claim, onClaimed }: { claim: ClaimView; onClaimed: (view: ClaimView) => void }) {
  const { symbol, standard } = token(claim.asset);
  const [address, setAddress] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const value = address.trim();
    if (!LOOKS_LIKE_TRON.test(value)) return setError(t('refund.error.invalid_address'));
    setBusy(true);
    setError(null);
    try {
      onClaimed(await giveAddress(claim.refund_id, value));
    } catch (e) {
      setError(refusal(e, claim.merchant_name));
      // The refund may have changed meanwhile (cancelled, expired, claimed elsewhere).
      readClaim(claim.refund_id).then(
        (next) => next.status !== 'awaiting_address' && onClaimed(next),
        () => {},
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="claim" onSubmit={(e) => void submit(e)} noValidate>
      <p>{t('refund.ask', { symbol, standard })}</p>
      <label for="refund-address">{t('refund.address_label')}</label>
      <input
        id="refund-address"
        type="text"
        autocomplete="off"
        spellcheck={false}
        autoCapitalize="off"
        maxLength={100}
        value={address}
        aria-describedby="refund-address-hint refund-error"
        aria-invalid={error ? 'true' : undefined}
        onInput={(e) => setAddress((e.currentTarget as HTMLInputElement).value)}
      />
      <p class="hint" id="refund-address-hint">
        {t('refund.address_hint')}
      </p>
      <p id="refund-error" class={error ? 'error' : 'outcome'} role="alert">
        {error ?? ''}
      </p>
      <p>
        <button type="submit" class="button" disabled={busy}>
          {t('refund.submit')}
        </button>
      </p>
      <p class="hint">{t('refund.valid_until', { date: when(claim.expires_at) })}</p>
    </form>
  );
}

/** The refund after the form: on its way, sent (with the transaction), or not to be claimed. */
function State({ claim }: { claim: ClaimView }) {
  const { symbol } = token(claim.asset);
  const values = { amount: money(claim.amount), symbol, merchant: claim.merchant_name, address: claim.address ?? '' };
  switch (claim.status) {
    case 'awaiting_address':
      return null;
    case 'requested':
      return (
        <div class="state info">
          <p class="headline" id="refund-status">
            {t('refund.status.requested')}
          </p>
          <p class="address-line">{t('refund.requested', values)}</p>
        </div>
      );
    case 'sent':
      return (
        <div class="state good">
          <p class="headline" id="refund-status">
            {t('refund.status.sent')}
          </p>
          <p class="address-line">{t('refund.sent', values)}</p>
          {claim.tx_hash ? (
            <p class="tx">
              {claim.explorer_url ? (
                <a href={claim.explorer_url} rel="noreferrer" target="_blank">
                  {t('refund.explorer')}
                </a>
              ) : (
                <>
                  {t('refund.transaction')} <code class="hash">{claim.tx_hash}</code>
                </>
              )}
            </p>
          ) : null}
        </div>
      );
    case 'failed':
      return (
        <div class="state warn">
          <p class="headline" id="refund-status">
            {t('refund.status.failed')}
          </p>
          <p>{t('refund.failed', values)}</p>
        </div>
      );
    case 'canceled':
      return (
        <div class="state muted">
          <p class="headline" id="refund-status">
            {t('refund.status.canceled')}
          </p>
          <p>{t('refund.canceled', values)}</p>
        </div>
      );
    case 'expired':
      return (
        <div class="state muted">
          <p class="headline" id="refund-status">
            {t('refund.status.expired')}
          </p>
          <p>{t('refund.expired', values)}</p>
        </div>
      );
  }
}

export function ClaimPage({ id }: { id: string }) {
  const [claim, setClaim] = useState<ClaimView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [, setLang] = useState(locale());
  useEffect(() => {
    readClaim(id).then(setClaim, setError);
  }, [id]);
  const picker = <LanguagePicker onChange={setLang} />;
  if (!claim)
    return (
      <>
        {picker}
        <h1>{t('refund.title')}</h1>
        {error ? (
          <p class="error" role="alert">
            {refusal(error, '')}
          </p>
        ) : (
          <p>{t('refund.loading')}</p>
        )}
      </>
    );
  document.title = t('refund.title_of', { merchant: claim.merchant_name });
  const { symbol } = token(claim.asset);
  const claimed = (next: ClaimView) => {
    setClaim(next);
    if (next.status === 'requested') announce(t('refund.status.requested'));
  };
  return (
    <>
      {picker}
      <header class="summary">
        <p class="merchant">{claim.merchant_name}</p>
        <h1>
          {t('refund.title')}:{' '}
          <span class="price" id="refund-amount">
            {money(claim.amount)} {symbol}
          </span>
        </h1>
        <p class="description">{t('refund.intro', { merchant: claim.merchant_name, order: claim.order_id })}</p>
      </header>
      <section class="payment" aria-labelledby="refund-title">
        <h2 id="refund-title">{claim.status === 'awaiting_address' ? t('refund.give') : t('refund.state')}</h2>
        {claim.status === 'awaiting_address' ? (
          <AddressForm claim={claim} onClaimed={claimed} />
        ) : (
          <State claim={claim} />
        )}
      </section>
    </>
  );
}
