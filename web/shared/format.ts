// How the pages show money, times, chain references: amounts as people read them (separators, a
// unit), token names with their standard, local time with UTC on hover, explorer links, copy buttons.
import { h } from './dom';

/** `USDT_TRON` as `USDT · TRC-20`; the chain's own coin as its symbol. */
export function assetName(asset: string): string {
  const [symbol = asset] = asset.split('_');
  return symbol === 'TRX' ? 'TRX' : `${symbol} · TRC-20`;
}

/** The symbol shown after an amount. */
export const unitOf = (asset: string): string => asset.split('_')[0] ?? asset;

/**
 * A decimal string with thousands separators, digit for digit (never through a float):
 * `1234567.5` → `1,234,567.5`.
 */
export function groupDigits(value: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(value);
  if (!match) return value;
  const [, sign = '', whole = '', fraction = ''] = match;
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction}`;
}

/** An amount with its unit, for a right-aligned cell (class `num`). */
export function amount(value: string, asset: string): HTMLElement {
  return h('span', { class: 'amount' }, groupDigits(value), h('span', { class: 'unit' }, ` ${unitOf(asset)}`));
}

/** `2026-05-01 10:00:00 UTC`. */
export function utc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A time in the reader's time zone, with the UTC time on hover and in `datetime`. */
export function when(iso: string | null | undefined, none = '—'): HTMLElement | string {
  if (!iso) return none;
  const d = new Date(iso);
  const local = Number.isNaN(d.getTime())
    ? utc(iso)
    : d.toLocaleString([], { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
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

/** A button that copies `text` and says so. */
export function copyButton(text: string, what: string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${what}` }, 'Copy');
  button.addEventListener('click', () => {
    void navigator.clipboard?.writeText(text).then(
      () => {
        button.textContent = 'Copied';
        setTimeout(() => (button.textContent = 'Copy'), 1500);
      },
      () => undefined,
    );
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
