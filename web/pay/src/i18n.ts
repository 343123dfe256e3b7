// The language the page speaks: chosen at start, changed by the picker, its catalog fetched when
// it is not English (the catalogs and their rules: catalog.ts).
import en from '../i18n/en.json' with { type: 'json' };
import {
  LANGUAGE_COOKIE,
  LANGUAGES,
  negotiate,
  rememberedLanguage,
  translate,
  type Catalog,
  type MessageKey,
} from './catalog.js';

export { LANGUAGES, LANGUAGE_NAMES } from './catalog.js';

/** The catalogs this page has: English is in the bundle, another is fetched once it is wanted. */
const catalogs: Record<string, Catalog> = { en };

export function rememberLanguage(lang: string): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${LANGUAGE_COOKIE}=${encodeURIComponent(lang)}; Path=/pay; Max-Age=31536000; SameSite=Lax${secure}`;
}

let current = 'en';

/** The language the page speaks now: `<html lang>` says it, Intl formats by it. */
export const locale = (): string => current;

/**
 * Speaks `lang` from now on, its catalog fetched first (`/pay/i18n/<tag>.json`, beside the
 * bundle); a catalog that cannot be fetched leaves the page in the language it speaks.
 */
export async function setLanguage(lang: string): Promise<void> {
  if (!LANGUAGES.includes(lang)) return;
  if (!catalogs[lang]) {
    try {
      const res = await fetch(`/pay/i18n/${lang}.json`, { credentials: 'omit' });
      if (!res.ok) return;
      catalogs[lang] = (await res.json()) as Catalog;
    } catch {
      return;
    }
  }
  current = lang;
  document.documentElement.lang = current;
}

/** The page's language at start: the picker's cookie, else the browser's languages. */
export function startLanguage(): string {
  return rememberedLanguage(document.cookie) ?? negotiate(navigator.languages ?? [navigator.language]);
}

/** The message `key` in the page's language. */
export const t = (key: MessageKey, values?: Record<string, string | number>): string =>
  translate(catalogs[current], current, key, values);

/** A message with a count (`{one: "# confirmation", other: "# confirmations"}`). */
export const tn = (key: MessageKey, count: number, values?: Record<string, string | number>): string =>
  translate(catalogs[current], current, key, values, count);
