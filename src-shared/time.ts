// Timestamps as the platform writes them: ISO 8601 UTC with six fractional digits and `Z`
// (2023-12-20T00:00:01.652259Z). Strings of this form sort chronologically.

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

let lastMicros = 0;

/** The current time, microsecond precision, strictly increasing within this process. */
export function nowTs(): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  lastMicros = micros > lastMicros ? micros : lastMicros + 1;
  return microsToTs(lastMicros);
}

export function microsToTs(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const frac = String(micros - ms * 1000).padStart(3, '0');
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, `.$1${frac}Z`);
}

/** Normalises an ISO 8601 date or date-time to the platform's form; null when it is not one. */
export function normalizeTs(input: string): string | null {
  const m = ISO.exec(input.trim());
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(base);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return null;
  }
  let offsetMin = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const micros = (base - offsetMin * 60_000) * 1000 + Number(frac.padEnd(6, '0').slice(0, 6));
  if (!Number.isFinite(micros)) return null;
  return microsToTs(micros);
}

/** A calendar date (YYYY-MM-DD) is kept as is; anything else must be a timestamp. */
export function normalizeDate(input: string): string | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(input)) return normalizeTs(input) ? input : null;
  return normalizeTs(input);
}
