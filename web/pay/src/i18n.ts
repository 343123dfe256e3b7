// The page's words in the customer's language: plain JSON catalogs (web/pay/i18n/<tag>.json), one
// message per key, `{name}` for a value and, for a count, one text per plural category as
// Intl.PluralRules names them (`#` is the count, formatted for the locale). English is in the
// bundle; another language's catalog is fetched when the page speaks it.
import en from '../i18n/en.json';

export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Catalog = Record<string, Message>;
export type MessageKey = keyof typeof en;

/** The catalogs this page has: English is in the bundle, another is fetched once it is wanted. */
const catalogs: Record<string, Catalog> = { en };

/** Each language by its own name, for the picker. */
export const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  ru: 'Русский',
  tr: 'Türkçe',
  'zh-CN': '简体中文',
  vi: 'Tiếng Việt',
  id: 'Bahasa Indonesia',
};

export const LANGUAGES = Object.keys(LANGUAGE_NAMES);

/** The cookie that remembers the picker's choice; the server's pages under /pay read it too. */
export const LANGUAGE_COOKIE = 'paygate_lang';

/**
 * The first of `wanted` (the browser's languages, as Accept-Language lists them) that the page
 * speaks: the exact tag, else its language alone (`es-MX` → `es`, `pt-PT` → `pt-BR`); English
 * when none. Traditional Chinese is not taken for Simplified.
 */
export function negotiate(wanted: readonly string[]): string {
  for (const tag of wanted) {
    const lower = tag.trim().toLowerCase();
    const exact = LANGUAGES.find((l) => l.toLowerCase() === lower);
    if (exact) return exact;
    if (/^zh-(tw|hk|mo|hant)/.test(lower)) continue;
    const base = lower.split('-')[0] === 'in' ? 'id' : lower.split('-')[0];
    const near = LANGUAGES.find((l) => l.toLowerCase().split('-')[0] === base);
    if (near) return near;
  }
  return 'en';
}

/** The picker's remembered choice, when it is one the page speaks. */
export function rememberedLanguage(cookie: string): string | null {
  const value = /(?:^|;\s*)paygate_lang=([^;]*)/.exec(cookie)?.[1];
  return value && LANGUAGES.includes(decodeURIComponent(value)) ? decodeURIComponent(value) : null;
}

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

function fill(text: string, lang: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : typeof value === 'number' ? value.toLocaleString(lang) : value;
  });
}

/** The message `key` of `catalog` (English when it lacks it) in `lang`; `count` picks the plural form. */
export function translate(
  catalog: Catalog | undefined,
  lang: string,
  key: MessageKey,
  values: Record<string, string | number> = {},
  count?: number,
): string {
  const message: Message = catalog?.[key] ?? en[key];
  if (typeof message === 'string') return fill(message, lang, values);
  const n = count ?? 0;
  const form = message[new Intl.PluralRules(lang).select(n)] ?? message.other ?? '';
  return fill(form.replace(/#/g, n.toLocaleString(lang)), lang, values);
}

/** The message `key` in the page's language. */
export const t = (key: MessageKey, values?: Record<string, string | number>): string =>
  translate(catalogs[current], current, key, values);

/** A message with a count (`{one: "# confirmation", other: "# confirmations"}`). */
export const tn = (key: MessageKey, count: number, values?: Record<string, string | number>): string =>
  translate(catalogs[current], current, key, values, count);
