// What a change of the recorded examples means for the API, for review: each operation's status
// and the shape of its answer (keys and JSON types, lists as the shape of their elements), kept
// in src-shared/contract/examples.reviewed.json. `npm run examples` writes the examples again and
// prints how their statuses and shapes differ from the reviewed ones;
// test/unit/examples-reviewed.test.ts fails until the difference is accepted on purpose with
// `npm run examples -- --accept` (which writes the reviewed file, and the diff shows in review).
import fs from 'node:fs';
import path from 'node:path';
import type { OperationExample } from '../src-shared/contract/operation';

export const REVIEWED_FILE = path.resolve(__dirname, '../src-shared/contract/examples.reviewed.json');

/** The shape of a JSON value: `"string"`, `"number"`, ..., `[shape of the elements]`, `{key: shape}`; alternatives joined by `|`. */
export type Shape = string | Shape[] | { [key: string]: Shape };

export interface Reviewed {
  status: number;
  /** The answer's media type, when it is not JSON. */
  mediaType?: string;
  answer?: Shape;
}

export function shapeOf(v: unknown): Shape {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.length ? [v.map(shapeOf).reduce(merge)] : [];
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, shapeOf(x)]));
  return typeof v;
}

const isObject = (s: Shape): s is { [key: string]: Shape } => typeof s === 'object' && !Array.isArray(s);

/** One shape covering both: keys of either (a key missing from one is marked `?`), alternatives joined. */
function merge(a: Shape, b: Shape): Shape {
  if (JSON.stringify(a) === JSON.stringify(b)) return a;
  if (Array.isArray(a) && Array.isArray(b)) return a.length && b.length ? [merge(a[0]!, b[0]!)] : a.length ? a : b;
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)].map((k) => k.replace(/\?$/, '')))].sort();
    return Object.fromEntries(
      keys.map((k) => {
        const x = a[k] ?? a[`${k}?`];
        const y = b[k] ?? b[`${k}?`];
        const optional = x === undefined || y === undefined || `${k}?` in a || `${k}?` in b;
        return [optional ? `${k}?` : k, x === undefined ? y! : y === undefined ? x : merge(x, y)];
      }),
    );
  }
  const parts = new Set([...String(typeof a === 'string' ? a : JSON.stringify(a)).split('|'), ...String(typeof b === 'string' ? b : JSON.stringify(b)).split('|')]);
  return [...parts].sort().join('|');
}

export function reviewedOf(examples: Readonly<Record<string, OperationExample>>): Record<string, Reviewed> {
  return Object.fromEntries(
    Object.keys(examples)
      .sort()
      .map((id) => {
        const ex = examples[id]!;
        const r: Reviewed = { status: ex.status };
        if (ex.mediaType) r.mediaType = ex.mediaType;
        if (ex.answer !== undefined) r.answer = ex.mediaType ? 'text' : shapeOf(ex.answer);
        return [id, r];
      }),
  );
}

/** Where two shapes differ, as `path: before → after` lines. */
function shapeChanges(at: string, before: Shape | undefined, after: Shape | undefined, out: string[]): void {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  if (before !== undefined && after !== undefined && isObject(before) && isObject(after)) {
    for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) shapeChanges(`${at}.${k}`, before[k], after[k], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length && after.length) {
    shapeChanges(`${at}[]`, before[0], after[0], out);
    return;
  }
  const show = (s: Shape | undefined) => (s === undefined ? '(absent)' : typeof s === 'string' ? s : JSON.stringify(s));
  out.push(`${at}: ${show(before)} → ${show(after)}`);
}

/** Every difference between the reviewed statuses and shapes and the ones of `now`, one line each. */
export function reviewChanges(reviewed: Readonly<Record<string, Reviewed>>, now: Readonly<Record<string, Reviewed>>): string[] {
  const out: string[] = [];
  for (const id of [...new Set([...Object.keys(reviewed), ...Object.keys(now)])].sort()) {
    const a = reviewed[id];
    const b = now[id];
    if (!a) {
      out.push(`${id}: a new example (status ${b!.status})`);
      continue;
    }
    if (!b) {
      out.push(`${id}: the example is gone (was status ${a.status})`);
      continue;
    }
    if (a.status !== b.status) out.push(`${id}: status ${a.status} → ${b.status}`);
    if (a.mediaType !== b.mediaType) out.push(`${id}: media type ${a.mediaType ?? 'application/json'} → ${b.mediaType ?? 'application/json'}`);
    const lines: string[] = [];
    shapeChanges('answer', a.answer, b.answer, lines);
    out.push(...lines.map((l) => `${id}: ${l}`));
  }
  return out;
}

export function readReviewed(): Record<string, Reviewed> {
  return fs.existsSync(REVIEWED_FILE) ? (JSON.parse(fs.readFileSync(REVIEWED_FILE, 'utf8')) as Record<string, Reviewed>) : {};
}

export function writeReviewed(examples: Readonly<Record<string, OperationExample>>): void {
  fs.writeFileSync(REVIEWED_FILE, `${JSON.stringify(reviewedOf(examples), null, 1)}\n`);
}
