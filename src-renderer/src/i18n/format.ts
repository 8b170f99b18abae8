// Locale-aware formatting (Intl): dates, numbers and the collator used wherever the console sorts.
import type { Lang } from './index';

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.Collator>();

function memo<T extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.Collator>(key: string, make: () => T): T {
  let v = cache.get(key) as T | undefined;
  if (!v) cache.set(key, (v = make()));
  return v;
}

const localeOf = (lang: Lang): string => (lang === 'ru' ? 'ru-RU' : 'en-GB');

const dtCache = new Map<string, string>();

/** Short date and time; results are cached (the table formats the same values while scrolling). */
export function formatDateTime(lang: Lang, ts: string | null | undefined): string {
  if (!ts) return '';
  const key = `${lang}|${ts}`;
  const hit = dtCache.get(key);
  if (hit !== undefined) return hit;
  const d = new Date(ts);
  const out = Number.isNaN(d.getTime()) ? ts : memo(`dt:${lang}`, () => new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'short', timeStyle: 'short' })).format(d);
  if (dtCache.size > 20_000) dtCache.clear();
  dtCache.set(key, out);
  return out;
}

export function formatDateTimeLong(lang: Lang, ts: string | null | undefined): string {
  if (!ts) return '';
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return ts;
  return memo(`dtl:${lang}`, () => new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'medium', timeStyle: 'medium' })).format(d);
}

/** A bucket start date ('YYYY-MM-DD', UTC) as a short label for the unit. */
export function formatBucket(lang: Lang, day: string, unit: 'day' | 'week' | 'month'): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  const opts: Intl.DateTimeFormatOptions =
    unit === 'month' ? { month: 'short', year: '2-digit', timeZone: 'UTC' } : { day: 'numeric', month: 'short', timeZone: 'UTC' };
  return memo(`b:${lang}:${unit}`, () => new Intl.DateTimeFormat(localeOf(lang), opts)).format(d);
}

export function formatNumber(lang: Lang, n: number | null | undefined, digits?: number): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  const key = `n:${lang}:${digits ?? '-'}`;
  return memo(key, () =>
    new Intl.NumberFormat(localeOf(lang), digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits }),
  ).format(n);
}

export function collator(lang: Lang): Intl.Collator {
  return memo(`c:${lang}`, () => new Intl.Collator(localeOf(lang), { sensitivity: 'base', numeric: true }));
}

/** Sorts a copy of `items` by a text key with the locale's collation. */
export function sortByText<T>(lang: Lang, items: readonly T[], key: (item: T) => string): T[] {
  const c = collator(lang);
  return [...items].sort((a, b) => c.compare(key(a), key(b)));
}
