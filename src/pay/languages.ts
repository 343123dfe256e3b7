/**
 * The payment page's languages and how a request picks one: the picker's cookie first (so pages
 * the server renders follow the customer's choice), then Accept-Language by its weights, then
 * English. A tag matches a language by its primary subtag (pt-PT → pt-BR, zh-TW → zh-CN).
 */
export const LANGUAGES = ['en', 'es', 'pt-BR', 'ru', 'tr', 'zh-CN', 'vi', 'id'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The cookie the page's language picker sets. */
export const LANGUAGE_COOKIE = 'paygate_lang';

function match(tag: string): Language | null {
  const t = tag.trim().toLowerCase();
  if (!t) return null;
  const exact = LANGUAGES.find((l) => l.toLowerCase() === t);
  if (exact) return exact;
  const primary = t.split('-')[0];
  return LANGUAGES.find((l) => l.toLowerCase().split('-')[0] === primary) ?? null;
}

function fromCookie(cookie: string | undefined): Language | null {
  for (const part of (cookie ?? '').split(';')) {
    const [name, value] = part.split('=');
    if (name?.trim() === LANGUAGE_COOKIE && value) return match(decodeURIComponent(value));
  }
  return null;
}

function fromAcceptLanguage(header: string | undefined): Language | null {
  const ranked = (header ?? '')
    .split(',')
    .map((item, i) => {
      const [tag = '', ...params] = item.split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag, q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) {
    const l = match(r.tag);
    if (l) return l;
  }
  return null;
}

/** A language named explicitly (a body's `language`), or null when it is not one of the page's. */
export const languageNamed = (tag: string): Language | null => match(tag);

export function languageOf(headers: { cookie?: string; 'accept-language'?: string }): Language {
  return fromCookie(headers.cookie) ?? fromAcceptLanguage(headers['accept-language']) ?? 'en';
}
