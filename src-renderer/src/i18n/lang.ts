// The console's language as chosen before anything is loaded: the user's choice kept in
// localStorage, else the system's (navigator.languages). A leaf module: the entry (main.tsx)
// reads it without loading the translations.

export const LANGS = ['en', 'ru'] as const;
export type Lang = (typeof LANGS)[number];

export const STORAGE_KEY = 'radar-console.lang';

export function systemLang(languages: readonly string[] = navigator.languages ?? [navigator.language]): Lang {
  for (const l of languages) {
    const base = l.toLowerCase().split('-')[0];
    if (base === 'ru') return 'ru';
    if (base === 'en') return 'en';
  }
  return 'en';
}

export function storedLang(): Lang | null {
  const v = localStorage.getItem(STORAGE_KEY);
  return v === 'en' || v === 'ru' ? v : null;
}

/** The language the console opens in. */
export const openingLang = (): Lang => storedLang() ?? systemLang();
