// The optional "email me a receipt" form: the address is kept with the page's language, and the
// receipt is mailed once the invoice is paid. Success and failure are said in words, next to it.
import { useState } from 'preact/hooks';
import { ApiError, leaveEmail } from './api.js';
import { locale, t } from './i18n.js';

type Outcome = { ok: true; email: string } | { ok: false; text: string } | null;

function failure(error: unknown): string {
  if (error instanceof ApiError && (error.code === 'validation_failed' || error.status === 400))
    return t('email.invalid');
  if (error instanceof ApiError && error.code === 'rate_limited') return t('error.rate_limited_soon');
  return t('email.failed');
}

/** `paid`: the receipt exists already, so the hint does not speak of a payment to come. */
export function ReceiptEmail({ invoiceId, paid }: { invoiceId: string; paid: boolean }) {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const address = email.trim();
    if (!address) return setOutcome({ ok: false, text: t('email.invalid') });
    setBusy(true);
    try {
      await leaveEmail(invoiceId, address, locale());
      setOutcome({ ok: true, email: address });
    } catch (error) {
      setOutcome({ ok: false, text: failure(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="email" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="email-title">
      <h3 id="email-title">{t('email.title')}</h3>
      <p class="hint" id="email-hint">
        {paid ? t('email.hint_paid') : t('email.hint')}
      </p>
      <label for="email">{t('email.label')}</label>
      <div class="email-row">
        <input
          id="email"
          type="email"
          autocomplete="email"
          inputMode="email"
          maxLength={254}
          value={email}
          aria-describedby="email-hint email-outcome"
          aria-invalid={outcome !== null && !outcome.ok ? 'true' : undefined}
          onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" class="button" disabled={busy}>
          {t('email.submit')}
        </button>
      </div>
      <p
        id="email-outcome"
        class={outcome === null ? 'outcome' : outcome.ok ? 'outcome saved' : 'outcome error'}
        role="status"
      >
        {outcome === null ? '' : outcome.ok ? t('email.saved', { email: outcome.email }) : outcome.text}
      </p>
    </form>
  );
}
