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

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** A size in bytes with the locale's unit names (binary multiples: 1 MB = 1024 KB). */
export function formatBytes(lang: Lang, n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  let v = Math.max(0, n);
  let i = 0;
  while (v >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = i === 0 || v >= 100 ? 0 : 1;
  return memo(`u:${lang}:${BYTE_UNITS[i]}:${digits}`, () =>
    new Intl.NumberFormat(localeOf(lang), { style: 'unit', unit: BYTE_UNITS[i], unitDisplay: 'short', maximumFractionDigits: digits }),
  ).format(v);
}

function unit(lang: Lang, u: 'millisecond' | 'second' | 'minute' | 'hour', n: number): string {
  return memo(`u:${lang}:${u}`, () => new Intl.NumberFormat(localeOf(lang), { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: 0 })).format(n);
}

/** A duration in seconds, short: "45 sec", "2 min 5 sec", "1 hr 3 min" (in the locale's words). */
export function formatDuration(lang: Lang, seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return unit(lang, 'second', s);
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${unit(lang, 'minute', m)} ${unit(lang, 'second', s % 60)}` : unit(lang, 'minute', m);
  const h = Math.floor(m / 60);
  return m % 60 ? `${unit(lang, 'hour', h)} ${unit(lang, 'minute', m % 60)}` : unit(lang, 'hour', h);
}

/** A fraction (0..1) as a percentage in the locale's form. */
export function formatPercent(lang: Lang, fraction: number): string {
  return memo(`p:${lang}`, () => new Intl.NumberFormat(localeOf(lang), { style: 'percent', maximumFractionDigits: 0 })).format(fraction);
}

/** Milliseconds, short ("420 ms"). */
export function formatMs(lang: Lang, ms: number): string {
  return unit(lang, 'millisecond', Math.round(ms));
}
