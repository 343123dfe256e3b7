// The page's words in the customer's language: plain JSON catalogs (web/pay/i18n/<tag>.json), one
// message per key, `{name}` for a value and, for a count, one text per plural category as
// Intl.PluralRules names them (`#` is the count, formatted for the locale). English is in the
// bundle; another language's catalog is fetched when the page speaks it. This part has no DOM:
// the unit tests read it.
import en from '../i18n/en.json' with { type: 'json' };

export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Catalog = Record<string, Message>;
export type MessageKey = keyof typeof en;

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
