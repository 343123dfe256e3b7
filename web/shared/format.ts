// How the pages show money, times, chain references: amounts as people read them (separators, a
// unit), token names with their standard, local time with UTC on hover, explorer links, copy buttons.
import { h } from './dom';
import { formatMoney, formatPrice } from './money';

/** `USDT_TRON` as `USDT · TRC-20`; the chain's own coin as its symbol. */
export function assetName(asset: string): string {
  const [symbol = asset] = asset.split('_');
  return symbol === 'TRX' ? 'TRX' : `${symbol} · TRC-20`;
}

/** The symbol shown after an amount. */
export const unitOf = (asset: string): string => asset.split('_')[0] ?? asset;

/** The cabinet's locale: amounts read the same for every owner (the payment page uses the customer's). */
export const CABINET_LOCALE = 'en-US';

/** Fraction digits of the assets the gateway knows; others show what the API gives. */
const DECIMALS: Record<string, number> = { USD: 2, TRX: 6, USDT: 6, USDC: 6, USDD: 18 };

/**
 * An amount as the shared money format writes it, never through a float: at least 2 and at most
 * the asset's decimals, with separators (`1250` USDT → `1,250.00`).
 */
export function money(value: string, asset: string): string {
  return formatMoney(value, DECIMALS[unitOf(asset)] ?? 0, CABINET_LOCALE, 2);
}

/** An amount with its unit, for a right-aligned cell (class `num`). */
export function amount(value: string, asset: string): HTMLElement {
  return h('span', { class: 'amount' }, money(value, asset), h('span', { class: 'unit' }, ` ${unitOf(asset)}`));
}

/** A price in dollars as the payment page shows it (`$1,250.00`). */
export function price(value: string, currency = 'USD'): HTMLElement {
  return h('span', { class: 'amount' }, formatPrice(value, currency, CABINET_LOCALE));
}

/** `2026-05-01 10:00:00 UTC`. */
export function utc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A time in the reader's time zone, with the UTC time on hover and in `datetime`. */
export function when(
  iso: string | null | undefined,
  none = '—',
  opts: { seconds?: boolean } = {},
): HTMLElement | string {
  if (!iso) return none;
  const d = new Date(iso);
  const local = Number.isNaN(d.getTime())
    ? utc(iso)
    : d.toLocaleString([], {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: opts.seconds ? '2-digit' : undefined,
      });
  return h('time', { datetime: iso, title: utc(iso) }, local);
}

const EXPLORERS: Record<string, string> = {
  mainnet: 'https://tronscan.org/#',
  nile: 'https://nile.tronscan.org/#',
};

/** The chain of this instance, as the server wrote it into the page (mainnet, nile or devnet). */
export function network(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="paygate-network"]')?.content ?? '';
}

/**
 * A button that copies `text` (the API's plain decimal for an amount) and says so. Where the
 * clipboard is refused (plain HTTP, a locked-down browser) it says that copying failed and shows
 * the text selected beside it, ready for the reader's own copy.
 */
export function copyButton(text: string, what: string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${what}` }, 'Copy');
  const say = (words: string) => {
    button.textContent = words;
    setTimeout(() => (button.textContent = 'Copy'), 4000);
  };
  const fallback = () => {
    say('Copy failed');
    const next = button.nextElementSibling;
    const field =
      next instanceof HTMLInputElement || next instanceof HTMLTextAreaElement
        ? next
        : h(text.includes('\n') ? 'textarea' : 'input', {
            class: 'copy-fallback',
            readonly: true,
            rows: text.split('\n').length,
            'aria-label': `Copying failed: ${what}, selected for your own copy`,
          });
    field.value = text;
    if (field !== next) button.after(field);
    field.focus();
    field.select();
  };
  button.addEventListener('click', () => {
    if (!navigator.clipboard) return fallback();
    navigator.clipboard.writeText(text).then(() => say('Copied'), fallback);
  });
  return button;
}

/**
 * A transaction hash or an address: the value (shortened in lists), a link to the network's
 * explorer (Tronscan on mainnet and Nile; none on the devnet), and a copy button.
 */
export function chainRef(kind: 'transaction' | 'address', value: string, opts: { short?: boolean } = {}): HTMLElement {
  const shown = opts.short && value.length > 20 ? `${value.slice(0, 8)}…${value.slice(-6)}` : value;
  const base = EXPLORERS[network()];
  const label = kind === 'transaction' ? 'transaction' : 'address';
  const text = h('code', { title: opts.short ? value : undefined }, shown);
  return h(
    'span',
    { class: 'ref' },
    base
      ? h(
          'a',
          {
            href: `${base}/${kind}/${value}`,
            target: '_blank',
            rel: 'noopener noreferrer',
            'aria-label': `${label} ${value} on Tronscan`,
          },
          text,
        )
      : text,
    copyButton(value, `the ${label}`),
  );
}
