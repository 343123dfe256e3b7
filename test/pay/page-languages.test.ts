/**
 * The payment page's languages: every catalog has every message of the English one and none it
 * lacks, each count message has the plural forms its language uses (as Intl.PluralRules names
 * them), each message keeps the English one's values; the page picks the customer's language
 * from the browser's list (what Accept-Language says) or the picker's cookie.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LANGUAGES,
  negotiate,
  rememberedLanguage,
  translate,
  type Catalog,
  type Message,
} from '../../web/pay/src/catalog.js';

const DIR = 'web/pay/i18n';
const CATALOGS: Record<string, Catalog> = Object.fromEntries(
  readdirSync(DIR).map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(`${DIR}/${file}`, 'utf8'))]),
);
const en = CATALOGS.en as Record<string, Message>;
const values = (m: Message) =>
  [...new Set((typeof m === 'string' ? [m] : Object.values(m)).flatMap((s) => s?.match(/\{\w+\}/g) ?? []))].sort();

describe('the payment page’s catalogs', () => {
  it('speaks the eight languages, each with its catalog', () => {
    const eight = ['en', 'es', 'id', 'pt-BR', 'ru', 'tr', 'vi', 'zh-CN'];
    expect([...LANGUAGES].sort()).toEqual(eight);
    expect(Object.keys(CATALOGS).sort()).toEqual(eight);
  });

  for (const [lang, catalog] of Object.entries(CATALOGS))
    it(`${lang} has every message of the English catalog and no other, with its values and plural forms`, () => {
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(en).sort());
      const forms = [...new Intl.PluralRules(lang).resolvedOptions().pluralCategories].sort();
      for (const [key, message] of Object.entries(catalog)) {
        const english = en[key] as Message;
        expect(typeof message, key).toBe(typeof english);
        expect(values(message), key).toEqual(values(english));
        if (typeof message === 'string') expect(message.trim(), key).not.toBe('');
        else expect(Object.keys(message).sort(), `${key}: the forms ${lang} uses`).toEqual(forms);
      }
    });

  it('picks plural forms and formats the count for the language', () => {
    expect(translate(CATALOGS.en, 'en', 'transactions.confirmations', {}, 1)).toBe('1 confirmation');
    expect(translate(CATALOGS.ru, 'ru', 'transactions.confirmations', {}, 3)).toBe('3 подтверждения');
    expect(translate(CATALOGS.ru, 'ru', 'transactions.confirmations', {}, 5)).toBe('5 подтверждений');
    expect(translate(CATALOGS.ru, 'ru', 'transactions.confirmations', {}, 21)).toBe('21 подтверждение');
    expect(translate(CATALOGS.es, 'es', 'action.return', { merchant: 'Café' })).toBe('Volver a Café');
  });

  it('takes the first language of the browser’s list that it speaks', () => {
    expect(negotiate(['de-DE', 'es-MX', 'en'])).toBe('es');
    expect(negotiate(['pt-PT'])).toBe('pt-BR');
    expect(negotiate(['zh'])).toBe('zh-CN');
    expect(negotiate(['zh-TW', 'ru'])).toBe('ru');
    expect(negotiate(['in-ID'])).toBe('id');
    expect(negotiate(['fr'])).toBe('en');
    expect(negotiate([])).toBe('en');
  });

  it('remembers the picker’s choice only when it is a language it speaks', () => {
    expect(rememberedLanguage('a=1; paygate_lang=pt-BR; b=2')).toBe('pt-BR');
    expect(rememberedLanguage('paygate_lang=xx')).toBeNull();
    expect(rememberedLanguage('')).toBeNull();
  });
});
