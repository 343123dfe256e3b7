/**
 * redirect_url_not_allowed: the origin of a return_url / cancel_url must equal the
 * origin of the merchant's address of the same kind or of its site_url. On the messenger link hosts
 * the origin says nothing about whose bot it is, so the first path segment (bot or channel name)
 * must match as well. A project with neither address accepts no redirect URL at all.
 */
import { AppError } from '../errors.js';
import type { MerchantRow } from '../merchants/store.js';

const MESSENGER_HOSTS = new Set(['t.me', 'telegram.me']);

function parse(text: string): URL | null {
  try {
    const u = new URL(text);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    // Credentials in a redirect URL only serve look-alike tricks (https://shop.example@evil.example).
    if (u.username !== '' || u.password !== '') return null;
    return u;
  } catch {
    return null;
  }
}

function firstSegment(u: URL): string {
  return (u.pathname.split('/')[1] ?? '').toLowerCase();
}

export function redirectAllowed(url: string, allowed: readonly (string | null)[]): boolean {
  const u = parse(url);
  if (!u) return false;
  for (const candidate of allowed) {
    const c = candidate === null ? null : parse(candidate);
    if (!c || c.origin !== u.origin) continue;
    if (MESSENGER_HOSTS.has(u.hostname) && firstSegment(c) !== firstSegment(u)) continue;
    return true;
  }
  return false;
}

export function assertRedirectAllowed(
  kind: 'return_url' | 'cancel_url',
  url: string | undefined,
  merchant: MerchantRow,
): void {
  if (url === undefined) return;
  if (!redirectAllowed(url, [merchant[kind], merchant.site_url])) {
    throw new AppError(
      'redirect_url_not_allowed',
      `The origin of ${kind} matches neither the project's ${kind} nor its site`,
    );
  }
}
