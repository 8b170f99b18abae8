// Timestamps as the platform writes them (contract.md §2): ISO 8601 UTC, six fractional
// digits, `Z`, so that the stored strings sort chronologically.
import { describe, expect, it } from 'vitest';
import { microsToTs, normalizeDate, normalizeTs, nowTs } from '../../src-shared/time';

const PLATFORM_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('nowTs', () => {
  it('answers ISO 8601 UTC with exactly six fractional digits and Z', () => {
    const ts = nowTs();
    expect(ts).toMatch(PLATFORM_TS);
  });

  it('is close to the wall clock', () => {
    const ts = nowTs();
    const ms = Date.parse(ts);
    expect(Math.abs(ms - Date.now())).toBeLessThan(5_000);
  });

  it('is strictly increasing over many calls made within the same microsecond', () => {
    const list = Array.from({ length: 20_000 }, () => nowTs());
    const firstBad = list.findIndex((ts, i) => i > 0 && !(ts > list[i - 1]!));
    expect(firstBad, firstBad > 0 ? `${list[firstBad - 1]} then ${list[firstBad]}` : '').toBe(-1);
    expect(new Set(list).size).toBe(list.length);
    expect(list.filter((ts) => !PLATFORM_TS.test(ts))).toEqual([]);
  });
});

describe('microsToTs', () => {
  it('formats the epoch and a known instant', () => {
    expect(microsToTs(0)).toBe('1970-01-01T00:00:00.000000Z');
    expect(microsToTs(Date.UTC(2023, 11, 20, 0, 0, 1) * 1000 + 652259)).toBe('2023-12-20T00:00:01.652259Z');
  });

  it('formats instants before 1970 without negative fractions', () => {
    expect(microsToTs(-1)).toBe('1969-12-31T23:59:59.999999Z');
    expect(microsToTs(-1500)).toBe('1969-12-31T23:59:59.998500Z');
    expect(microsToTs(-1_000_000)).toBe('1969-12-31T23:59:59.000000Z');
    expect(microsToTs(Date.UTC(1961, 3, 12, 6, 7, 0) * 1000 + 123)).toBe('1961-04-12T06:07:00.000123Z');
  });

  it('keeps the microsecond part exactly for values with a sub-millisecond remainder', () => {
    expect(microsToTs(1_700_000_000_000_001)).toBe('2023-11-14T22:13:20.000001Z');
    expect(microsToTs(1_700_000_000_999_999)).toBe('2023-11-14T22:13:20.999999Z');
  });
});

describe('normalizeTs', () => {
  it('keeps a platform timestamp unchanged', () => {
    expect(normalizeTs('2023-12-20T00:00:01.652259Z')).toBe('2023-12-20T00:00:01.652259Z');
  });

  it('accepts a lower-case z and surrounding whitespace', () => {
    expect(normalizeTs(' 2023-12-20T10:00:00z ')).toBe('2023-12-20T10:00:00.000000Z');
  });

  it('treats a missing zone as UTC', () => {
    expect(normalizeTs('2023-12-20T10:11:12')).toBe('2023-12-20T10:11:12.000000Z');
    expect(normalizeTs('2023-12-20 10:11:12')).toBe('2023-12-20T10:11:12.000000Z');
  });

  it('converts +03:00 (Moscow) to UTC', () => {
    expect(normalizeTs('2024-03-01T12:00:00+03:00')).toBe('2024-03-01T09:00:00.000000Z');
  });

  it('converts negative and colon-less offsets, crossing the date line', () => {
    expect(normalizeTs('2024-03-01T22:30:00-05:00')).toBe('2024-03-02T03:30:00.000000Z');
    expect(normalizeTs('2024-03-01T01:00:00+0530')).toBe('2024-02-29T19:30:00.000000Z');
    expect(normalizeTs('2024-01-01T00:00:00+03')).toBe('2023-12-31T21:00:00.000000Z');
  });

  it('pads short fractions to six digits', () => {
    expect(normalizeTs('2024-03-01T12:00:00.5Z')).toBe('2024-03-01T12:00:00.500000Z');
    expect(normalizeTs('2024-03-01T12:00:00.123Z')).toBe('2024-03-01T12:00:00.123000Z');
  });

  it('truncates fractions longer than six digits (nanoseconds)', () => {
    expect(normalizeTs('2024-03-01T12:00:00.123456789Z')).toBe('2024-03-01T12:00:00.123456Z');
    expect(normalizeTs('2024-03-01T12:00:00.9999999Z')).toBe('2024-03-01T12:00:00.999999Z');
  });

  it('accepts a comma as the decimal separator', () => {
    expect(normalizeTs('2024-03-01T12:00:00,25Z')).toBe('2024-03-01T12:00:00.250000Z');
  });

  it('accepts minutes without seconds', () => {
    expect(normalizeTs('2024-03-01T12:34Z')).toBe('2024-03-01T12:34:00.000000Z');
  });

  it('turns a date-only value into midnight UTC', () => {
    expect(normalizeTs('2024-03-01')).toBe('2024-03-01T00:00:00.000000Z');
  });

  it('accepts 29 February in a leap year only', () => {
    expect(normalizeTs('2024-02-29')).toBe('2024-02-29T00:00:00.000000Z');
    expect(normalizeTs('2023-02-29')).toBeNull();
  });

  it('rejects impossible dates and times', () => {
    expect(normalizeTs('2023-02-30')).toBeNull();
    expect(normalizeTs('2023-13-01')).toBeNull();
    expect(normalizeTs('2023-00-10')).toBeNull();
    expect(normalizeTs('2023-04-31T00:00:00Z')).toBeNull();
    expect(normalizeTs('2023-01-01T24:00:00Z')).toBeNull();
    expect(normalizeTs('2023-01-01T23:60:00Z')).toBeNull();
    expect(normalizeTs('2023-01-01T23:59:60Z')).toBeNull();
  });

  it('rejects garbage', () => {
    for (const s of ['', 'now', 'вчера', '20231220', '2023/12/20', '12/20/2023', '2023-12-20T', '2023-12-20Tab:cd', '2023-12-20T10:00:00Q', '1700000000']) {
      expect(normalizeTs(s), s).toBeNull();
    }
  });

  it('normalises instants before 1970', () => {
    expect(normalizeTs('1969-12-31T23:59:59.5Z')).toBe('1969-12-31T23:59:59.500000Z');
    expect(normalizeTs('1961-04-12T09:07:00+03:00')).toBe('1961-04-12T06:07:00.000000Z');
  });

  it('produces strings that sort in time order', () => {
    const inputs = ['2024-03-01T12:00:00+03:00', '2024-03-01T08:59:59.999999Z', '2024-03-01T09:00:00.000001Z', '1999-12-31', '2024-03-01T09:00:00Z'];
    const norm = inputs.map((s) => normalizeTs(s)!);
    const byString = [...norm].sort();
    const byTime = [...norm].sort((a, b) => Date.parse(a) - Date.parse(b) || (a < b ? -1 : 1));
    expect(byString).toEqual(byTime);
    expect(byString[0]).toBe('1999-12-31T00:00:00.000000Z');
  });
});

describe('normalizeDate', () => {
  it('keeps a calendar date as a date', () => {
    expect(normalizeDate('2024-03-01')).toBe('2024-03-01');
  });

  it('rejects an impossible calendar date', () => {
    expect(normalizeDate('2023-02-30')).toBeNull();
  });

  it('normalises a full timestamp', () => {
    expect(normalizeDate('2024-03-01T12:00:00+03:00')).toBe('2024-03-01T09:00:00.000000Z');
  });
});
