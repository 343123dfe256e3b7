// The page's words in the customer's language: plain JSON catalogs (web/pay/i18n/<tag>.json), one
// message per key, `{name}` for a value and, for a count, one text per plural category as
// Intl.PluralRules names them (`#` is the count, formatted for the locale).
import en from '../i18n/en.json';
import es from '../i18n/es.json';
import id from '../i18n/id.json';
import ptBR from '../i18n/pt-BR.json';
import ru from '../i18n/ru.json';
import tr from '../i18n/tr.json';
import vi from '../i18n/vi.json';
import zhCN from '../i18n/zh-CN.json';

export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Catalog = Record<string, Message>;
export type MessageKey = keyof typeof en;

export const CATALOGS: Record<string, Catalog> = {
  en,
  es,
  'pt-BR': ptBR,
  ru,
  tr,
  'zh-CN': zhCN,
  vi,
  id,
};

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

export const LANGUAGES = Object.keys(CATALOGS);

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

export function setLanguage(lang: string): void {
  current = LANGUAGES.includes(lang) ? lang : 'en';
  document.documentElement.lang = current;
}

/** The page's language at start: the picker's cookie, else the browser's languages. */
export function startLanguage(): string {
  return rememberedLanguage(document.cookie) ?? negotiate(navigator.languages ?? [navigator.language]);
}

function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : typeof value === 'number' ? value.toLocaleString(current) : value;
  });
}

/** The message `key` in `lang`, falling back to English; `count` picks the plural form. */
export function translate(
  lang: string,
  key: MessageKey,
  values: Record<string, string | number> = {},
  count?: number,
): string {
  const message: Message = CATALOGS[lang]?.[key] ?? en[key];
  if (typeof message === 'string') return fill(message, values);
  const n = count ?? 0;
  const form = message[new Intl.PluralRules(lang).select(n)] ?? message.other ?? '';
  return fill(form.replace(/#/g, n.toLocaleString(lang)), values);
}

/** The message `key` in the page's language. */
export const t = (key: MessageKey, values?: Record<string, string | number>): string => translate(current, key, values);

/** A message with a count (`{one: "# confirmation", other: "# confirmations"}`). */
export const tn = (key: MessageKey, count: number, values?: Record<string, string | number>): string =>
  translate(current, key, values, count);
