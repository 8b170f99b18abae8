// The pieces that bound input: the JSON depth check, the byte budget of bodies read at once, and
// the import reader's linear handling of whitespace and long lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ByteBudget } from '../../src-main/server/limits';
import { readEntry, type Loc } from '../../src-main/transfer/reader';
import { TransferError } from '../../src-main/transfer/errors';
import { checkJsonDepth, JsonDepthError, MAX_JSON_DEPTH, parseJson } from '../../src-shared/json';

describe('checkJsonDepth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(() => checkJsonDepth('['.repeat(64) + ']'.repeat(64))).not.toThrow();
    expect(() => checkJsonDepth('['.repeat(65) + ']'.repeat(65))).toThrow(JsonDepthError);
    expect(() => checkJsonDepth(`{"a":"${'['.repeat(1000)}"}`)).not.toThrow();
    expect(() => checkJsonDepth(`{"a":"\\"${'{'.repeat(1000)}"}`)).not.toThrow();
    expect(() => checkJsonDepth(`["\\\\",${'['.repeat(70)}`)).toThrow(JsonDepthError);
    expect(() => checkJsonDepth('[{"a":[{"b":[]}]}]', 4)).toThrow(JsonDepthError);
    expect(() => checkJsonDepth('[{"a":[{"b":[]}]}]', 5)).not.toThrow();
    // Many brackets, shallow: more openers than the bound, still within it.
    expect(() => checkJsonDepth(`[${'[],'.repeat(200)}{"a":{}}]`)).not.toThrow();
    expect(() => checkJsonDepth(`[${'{},'.repeat(200)}${'['.repeat(64)}${']'.repeat(64)}]`)).toThrow(JsonDepthError);
  });

  it('parseJson bounds then parses', () => {
    expect(parseJson('{"a":[1,{"b":null}]}')).toEqual({ a: [1, { b: null }] });
    expect(() => parseJson('{"a":')).toThrow(SyntaxError);
    expect(() => parseJson('['.repeat(MAX_JSON_DEPTH + 1))).toThrow(/nested deeper than 64 levels/);
  });
});

describe('ByteBudget', () => {
  it('hands out bytes first come, first served, and never more than its capacity', async () => {
    const b = new ByteBudget(100);
    expect(b.acquire(60)).toBeUndefined();
    const order: string[] = [];
    const big = b.acquire(80)!.then(() => order.push('big'));
    const small = b.acquire(10)!.then(() => order.push('small')); // waits behind the big one
    expect(b.inUse).toBe(60);
    b.release(60);
    await big;
    await small;
    expect(order).toEqual(['big', 'small']);
    expect(b.inUse).toBe(90);
    expect(b.acquire(1000)).toBeInstanceOf(Promise); // more than the capacity waits for all of it
    b.release(90);
    expect(b.inUse).toBe(100);
  });
});

describe('the import reader', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-reader-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const entry = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return { name, size: text.length, open: async () => fs.createReadStream(file, { highWaterMark: 64 * 1024 }) };
  };
  const read = async (name: string, text: string) => {
    const records: { v: unknown; line: number }[] = [];
    const res = await readEntry(entry(name, text), { record: (v: unknown, loc: Loc) => records.push({ v, line: loc.line }), note: () => undefined });
    return { ...res, records };
  };
  const refusal = (name: string, text: string) => read(name, text).then(() => null, (e: unknown) => e as TransferError);

  it('keeps line and column right after leading whitespace, in either reader', async () => {
    const blank = '\n'.repeat(3) + ' '.repeat(200_000);
    const nd = await read('a.ndjson', `${blank}{"id":1}\n  {"id":2}\n`);
    expect(nd.records.map((r) => r.line)).toEqual([4, 5]);
    expect((await refusal('b.ndjson', `${blank}{"id":1}\n{"id":}\n`))?.where).toMatchObject({ line: 5, column: 7 });
    expect((await refusal('c.ndjson', `${blank}{"id":x}\n`))?.where).toMatchObject({ line: 4, column: 200_007 });
    const arr = await read('d.json', `${blank}[{"id":1},\n{"id":2}]`);
    expect(arr.records.map((r) => r.line)).toEqual([4, 5]);
    expect((await refusal('e.json', `${blank}[{"id":1},\n{"id" 2}]`))?.where).toMatchObject({ line: 5, column: 7 });
    expect((await refusal('f.json', `${blank}x`))?.where).toMatchObject({ line: 4, column: 200_001 });
    expect((await refusal('g.json', ' '.repeat(300_000)))?.reason).toMatch(/empty/);
  });

  it('refuses records nested past the bound', async () => {
    expect((await refusal('h.ndjson', `{"a":${'['.repeat(70)}${']'.repeat(70)}}\n`))?.reason).toMatch(/nested deeper than 64 levels/);
    expect((await refusal('i.json', `[{"a":${'['.repeat(70)}${']'.repeat(70)}}]`))?.reason).toMatch(/nested deeper than 64 levels/);
  });

  it('reads whitespace and long lines in linear time', async () => {
    const time = async (name: string, text: string) => {
      const t0 = performance.now();
      await read(name, text).catch(() => undefined);
      return performance.now() - t0;
    };
    const mb = 1024 * 1024;
    // Warm up, then 4 MB against 32 MB of whitespace: linear reading takes about 8 times as long.
    await time('w0.json', ' '.repeat(mb));
    const small = await time('w1.json', ' '.repeat(4 * mb));
    const large = await time('w2.json', ' '.repeat(32 * mb));
    const longSmall = await time('l1.ndjson', `{"a":"${'x'.repeat(4 * mb)}"}\n`);
    const longLarge = await time('l2.ndjson', `{"a":"${'x'.repeat(32 * mb)}"}\n`);
    console.log(`reader: whitespace 4 MB ${small.toFixed(0)} ms, 32 MB ${large.toFixed(0)} ms; one line 4 MB ${longSmall.toFixed(0)} ms, 32 MB ${longLarge.toFixed(0)} ms`);
    // The ratios are time limits: held in `npm run test:robust` (RADAR_ROBUST=1), printed here.
    if (process.env.RADAR_ROBUST === '1') {
      expect(large / small).toBeLessThan(24);
      expect(longLarge / longSmall).toBeLessThan(24);
    }
  });
});
