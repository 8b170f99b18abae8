// The console's languages (i18next): English and Russian, complete. The language follows the
// system (navigator.languages) until the user picks one, which is kept in localStorage.
import i18next, { type FormatterModule } from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import { EN, RU } from './catalog';
import { formatNumber } from './format';
import { LANGS, STORAGE_KEY, storedLang, systemLang, type Lang } from './lang';

export { LANGS, systemLang, type Lang } from './lang';

export const i18n = i18next.createInstance();

/**
 * Every number a message carries is written the language's way (1,234,567 / 1 234 567); a
 * number that names something (an incident's #) is passed as text and left alone.
 */
const numbersFormatter: FormatterModule = {
  type: 'formatter',
  init() {},
  add() {},
  addCached() {},
  // Anything else goes on as it came (undefined stays missing, for i18next to report).
  format: (value, _format, lng) => (typeof value === 'number' ? formatNumber(lng === 'ru' ? 'ru' : 'en', value) : (value as string)),
};

void i18n.use(initReactI18next).use(numbersFormatter).init({
  resources: { en: { translation: EN }, ru: { translation: RU } },
  lng: storedLang() ?? systemLang(),
  fallbackLng: false,
  supportedLngs: [...LANGS],
  initAsync: false,
  // alwaysFormat: every value a message carries goes through numbersFormatter below.
  interpolation: { escapeValue: false, alwaysFormat: true },
});

document.documentElement.lang = i18n.language;

/** The language chosen by the user ('system' follows the browser). */
export function langPreference(): Lang | 'system' {
  return storedLang() ?? 'system';
}

export function setLangPreference(pref: Lang | 'system'): void {
  if (pref === 'system') localStorage.removeItem(STORAGE_KEY);
  else localStorage.setItem(STORAGE_KEY, pref);
  const lang = pref === 'system' ? systemLang() : pref;
  void i18n.changeLanguage(lang);
  document.documentElement.lang = lang;
}

export function currentLang(): Lang {
  return i18n.language === 'ru' ? 'ru' : 'en';
}

/** t() and the current language, re-rendering on a language change. */
export function useI18n() {
  const { t, i18n: inst } = useTranslation();
  const lang: Lang = inst.language === 'ru' ? 'ru' : 'en';
  return { t, lang };
}
