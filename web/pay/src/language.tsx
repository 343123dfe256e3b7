// The language picker: every language the page speaks, by its own name; the choice is kept in a
// cookie so the page (and the pages the server renders under /pay) speak it next time.
import { LANGUAGES, LANGUAGE_NAMES, locale, rememberLanguage, setLanguage, t } from './i18n.js';

export function LanguagePicker({ onChange }: { onChange: (lang: string) => void }) {
  return (
    <p class="language">
      <label for="language">{t('language.label')}</label>{' '}
      <select
        id="language"
        value={locale()}
        onChange={(e) => {
          const lang = (e.currentTarget as HTMLSelectElement).value;
          rememberLanguage(lang);
          void setLanguage(lang).then(() => onChange(locale()));
        }}
      >
        {LANGUAGES.map((lang) => (
          <option key={lang} value={lang} lang={lang}>
            {LANGUAGE_NAMES[lang]}
          </option>
        ))}
      </select>
    </p>
  );
}
