// The incident list's read-ahead (src-renderer/src/data/source.ts, PagedSource): a viewport at
// rest or moving slowly asks its pages and the usual few ahead; a fast scroll asks as far ahead
// as it will reach before an answer comes (bounded), so the rows are there when it arrives; a
// pause starts the speed again from zero.
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { PAGE_SIZE, READ_AHEAD } from '../../src-renderer/src/data/paging';

// The source's module reads the page's language on load (the console's translations).
let PagedSource: typeof import('../../src-renderer/src/data/source').PagedSource;
beforeAll(async () => {
  const kept = new Map<string, string>();
  vi.stubGlobal('localStorage', { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => kept.set(k, v), removeItem: (k: string) => kept.delete(k) });
  if (!('navigator' in globalThis)) vi.stubGlobal('navigator', { language: 'en', languages: ['en'] });
  if (!('document' in globalThis)) vi.stubGlobal('document', { documentElement: { lang: '' } });
  ({ PagedSource } = await import('../../src-renderer/src/data/source'));
});
afterAll(() => vi.unstubAllGlobals());

const TOTAL = 1_000_000;

/** A source whose requests are recorded: answered at once (`answer`) or left in flight. */
function sourceOf(answer: boolean | 'first') {
  const asked: { offset: number; limit: number; signal: AbortSignal }[] = [];
  const src = new PagedSource(
    'k',
    (offset, limit, signal) => {
      asked.push({ offset, limit, signal });
      if (!answer || (answer === 'first' && asked.length > 1)) return new Promise(() => {});
      const items = Array.from({ length: limit }, (_, i) => ({ id: String(offset + i) }));
      return Promise.resolve({ items, total: TOTAL });
    },
    { id: 'main', name: 'main' },
  );
  /** The last page asked so far. */
  const lastPage = () => Math.max(...asked.map((a) => Math.ceil((a.offset + a.limit) / PAGE_SIZE) - 1));
  return { src, asked, lastPage };
}

let now = 0;
afterEach(() => vi.restoreAllMocks());

const clock = () => vi.spyOn(performance, 'now').mockImplementation(() => now);
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('read-ahead of the incident list', () => {
  test('a viewport at rest asks its pages and the usual read-ahead', async () => {
    clock();
    now = 10_000;
    const { src, lastPage } = sourceOf(true);
    src.ensure(0, 40);
    await settle();
    src.ensure(0, 40);
    await settle();
    // A slow move (one page in a second): no more than the usual read-ahead.
    now += 1000;
    src.ensure(100, 140);
    await settle();
    expect(lastPage()).toBe(1 + READ_AHEAD);
  });

  test('a fast scroll asks further ahead, bounded, and a pause goes back to the usual', async () => {
    clock();
    now = 10_000;
    const { src, lastPage } = sourceOf(true);
    src.ensure(0, 40);
    await settle();
    // 20 rows every 16 ms (1,250 rows/s): what it reaches in the next answer's time is read ahead.
    let start = 0;
    for (let f = 0; f < 20; f++) {
      now += 16;
      start += 20;
      src.ensure(start, start + 40);
      await settle();
    }
    const viewportLast = Math.floor((start + 39) / PAGE_SIZE);
    expect(lastPage()).toBeGreaterThan(viewportLast + READ_AHEAD + 4);
    expect(lastPage()).toBeLessThanOrEqual(viewportLast + 12);
    // A pause, then a step: the speed starts again from zero.
    const before = lastPage();
    now += 5000;
    src.ensure(start + 20, start + 60);
    await settle();
    expect(lastPage()).toBe(before);
  });

  test('pages read ahead for a fast scroll stay in flight as the viewport moves on', async () => {
    clock();
    now = 10_000;
    const { src, asked } = sourceOf('first');
    src.ensure(0, 40);
    await settle();
    let start = 0;
    for (let f = 0; f < 20; f++) {
      now += 16;
      start += 20;
      src.ensure(start, start + 40);
      await settle();
    }
    // Every request still useful (at or beyond the viewport's first page) is in flight.
    const viewportFirst = Math.floor(start / PAGE_SIZE);
    const ahead = asked.filter((a) => a.offset + a.limit > viewportFirst * PAGE_SIZE);
    expect(ahead.length).toBeGreaterThan(0);
    for (const a of ahead) expect(a.signal.aborted).toBe(false);
    src.dispose();
  });
});
