// Locale-aware formatting (Intl): dates, numbers and the collator used wherever the console sorts.
import type { Lang } from './lang';

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.Collator>();

function memo<T extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.Collator>(key: string, make: () => T): T {
  let v = cache.get(key) as T | undefined;
  if (!v) cache.set(key, (v = make()));
  return v;
}

const localeOf = (lang: Lang): string => (lang === 'ru' ? 'ru-RU' : 'en-GB');

const dtCache = new Map<string, string>();

/**
 * Makes the formats the incident list's first rows use (numbers, risk levels, dates and times)
 * ahead of them: the first format made loads the locale's data (tens of ms), done by the entry
 * while the application's code downloads rather than in the list's first render.
 */
export function prepareFormats(lang: Lang): void {
  formatNumber(lang, 0);
  formatNumber(lang, 0, 1);
  memo(`dt:${lang}`, () => new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'short', timeStyle: 'short' }));
}

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

/** The date format of the locale (the date part of formatDateTime): 31/10/2026, 31.10.2026. */
const dateFormat = (lang: Lang, timeZone?: string) =>
  memo(`d:${lang}:${timeZone ?? ''}`, () => new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'short', ...(timeZone ? { timeZone } : {}) }));

/**
 * A date in the locale's one date format. A calendar day ('YYYY-MM-DD') is that day; a
 * timestamp is its local day.
 */
export function formatDate(lang: Lang, value: string | null | undefined): string {
  if (!value) return '';
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const d = new Date(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime())) return value;
  return dateFormat(lang, day ? 'UTC' : undefined).format(d);
}

/** A time of day with seconds (for "read at ..."). */
export function formatTime(lang: Lang, ts: string | number | Date): string {
  const d = ts instanceof Date ? ts : new Date(ts);
  if (Number.isNaN(d.getTime())) return '';
  return memo(`t:${lang}`, () => new Intl.DateTimeFormat(localeOf(lang), { timeStyle: 'medium' })).format(d);
}

/** How a date is typed in the locale: dd/mm/yyyy, дд.мм.гггг. */
export function datePattern(lang: Lang): string {
  const names = lang === 'ru' ? { day: 'дд', month: 'мм', year: 'гггг' } : { day: 'dd', month: 'mm', year: 'yyyy' };
  return dateFormat(lang, 'UTC')
    .formatToParts(new Date(Date.UTC(2026, 10, 22)))
    .map((p) => (p.type === 'day' || p.type === 'month' || p.type === 'year' ? names[p.type] : p.value))
    .join('');
}

/**
 * A date typed in the locale's order (day, month, year for both languages here; any of . / -
 * between) or as YYYY-MM-DD, as 'YYYY-MM-DD'; null when it is no real date.
 */
export function parseDate(lang: Lang, text: string): string | null {
  const s = text.trim();
  let y: number;
  let m: number;
  let d: number;
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else {
    const parts = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/.exec(s);
    if (!parts) return null;
    const order = dateFormat(lang, 'UTC')
      .formatToParts(new Date(Date.UTC(2026, 10, 22)))
      .filter((p) => p.type === 'day' || p.type === 'month')
      .map((p) => p.type);
    const [a, b] = [Number(parts[1]), Number(parts[2])];
    [d, m] = order[0] === 'month' ? [b, a] : [a, b];
    y = Number(parts[3]);
  }
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return null;
  return dt.toISOString().slice(0, 10);
}

export function formatDateTimeLong(lang: Lang, ts: string | null | undefined): string {
  if (!ts) return '';
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return ts;
  return memo(`dtl:${lang}`, () => new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'medium', timeStyle: 'medium' })).format(d);
}

/**
 * A bucket start date ('YYYY-MM-DD', UTC) as a short axis label for the unit, in the digits and
 * order of the locale's date format: 31/10 and 10/2026, 31.10 and 10.2026.
 */
export function formatBucket(lang: Lang, day: string, unit: 'day' | 'week' | 'month'): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  const opts: Intl.DateTimeFormatOptions =
    unit === 'month' ? { month: '2-digit', year: 'numeric', timeZone: 'UTC' } : { day: '2-digit', month: '2-digit', timeZone: 'UTC' };
  return memo(`b:${lang}:${unit}`, () => new Intl.DateTimeFormat(localeOf(lang), opts)).format(d);
}

/** A bucket in a chart's tooltip: its whole date (a month as on the axis). */
export function formatBucketLong(lang: Lang, day: string, unit: 'day' | 'week' | 'month'): string {
  return unit === 'month' ? formatBucket(lang, day, unit) : formatDate(lang, day);
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

/** How long ago an instant was, in words ("26 days ago", "3 hours ago", "now"). */
export function formatAgo(lang: Lang, at: number, now: number = Date.now()): string {
  const rtf = memo(`rt:${lang}`, () => new Intl.RelativeTimeFormat(localeOf(lang), { numeric: 'auto' }) as unknown as Intl.NumberFormat) as unknown as Intl.RelativeTimeFormat;
  const s = Math.round((at - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(0, 'second');
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86_400), 'day');
}
