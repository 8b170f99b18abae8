// Checking a search request as the server will: its shape with the shared zod schema, then its
// fields, filter types and values against the resource's declaration. Messages are i18n keys.
import type { z } from 'zod';
import { fieldOf, filtersForKind, relationsOf, type FieldInfo, type ResourceDef } from '../../../../src-shared/resources/index';
import { isUuid } from '../../../../src-shared/schemas/common';
import { searchRequestSchema, type SearchFilter, type SearchRequest } from '../../../../src-shared/schemas/search';
import { normalizeDate, normalizeTs } from '../../../../src-shared/time';

export interface Issue {
  path: string;
  key: string;
  values?: Record<string, unknown>;
  /** The line of text the issue is on, with the column (from 0) of the place to mark. */
  marker?: { text: string; column: number };
}

export function zodIssues(error: z.ZodError): Issue[] {
  return error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    switch (i.code) {
      case 'invalid_type':
        return { path, key: 'validate.type', values: { expected: i.expected } };
      case 'too_big':
        return { path, key: 'validate.tooBig', values: { max: String(i.maximum) } };
      case 'too_small':
        return { path, key: 'validate.tooSmall', values: { min: String(i.minimum) } };
      case 'invalid_value':
        return { path, key: 'validate.oneOf', values: { values: i.values.map(String).join(', ') } };
      case 'unrecognized_keys':
        return { path, key: 'validate.unknownKeys', values: { keys: i.keys.join(', ') } };
      default:
        return { path, key: 'validate.other', values: { message: i.message } };
    }
  });
}

/** Whether the server can convert `v` to what the field stores. */
export function coercible(f: FieldInfo, v: unknown): boolean {
  switch (f.kind) {
    case 'uuid':
      return isUuid(v);
    case 'string':
      return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
    case 'int':
    case 'number': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      return Number.isFinite(n) && (f.kind === 'number' || Number.isInteger(n));
    }
    case 'bool':
      return [true, false, 1, 0, 'true', 'false', '1', '0'].includes(v as never);
    case 'timestamp':
      return typeof v === 'string' && normalizeTs(v) !== null;
    case 'date':
      return typeof v === 'string' && normalizeDate(v) !== null;
    case 'json':
      return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  }
}

export function findRelation(r: ResourceDef, name: string) {
  const rels = relationsOf(r);
  return rels.find(([n]) => n === name) ?? rels.find(([, rel]) => rel.kind === 'belongsTo' && rel.fk === name);
}

function filterIssues(r: ResourceDef, f: SearchFilter, path: string): Issue[] {
  if (f.filter_type === 'related') {
    if (!findRelation(r, f.field)) return [{ path: `${path}.field`, key: 'validate.unknownRelation', values: { name: f.field } }];
    const ids = f.value === undefined || f.value === null ? [] : Array.isArray(f.value) ? f.value : [f.value];
    return ids.some((x) => !isUuid(x)) ? [{ path: `${path}.value`, key: 'validate.uuids' }] : [];
  }
  const info = fieldOf(r, f.field);
  if (!info) return [{ path: `${path}.field`, key: 'validate.unknownField', values: { name: f.field } }];
  const allowed = info.def?.secret ? ['exists'] : filtersForKind(info.kind, info.jsonShape);
  if (!allowed.includes(f.filter_type)) return [{ path: `${path}.filter_type`, key: 'validate.filterType', values: { type: f.filter_type, field: f.field, allowed: allowed.join(', ') } }];
  const v = f.value;
  const bad = (key = 'validate.value') => [{ path: `${path}.value`, key, values: { field: f.field, kind: info.kind } }];
  switch (f.filter_type) {
    case 'equal':
      return v === undefined || v === null || typeof v === 'object' || !coercible(info, v) ? bad() : [];
    case 'substr':
      return typeof v === 'string' ? [] : bad('validate.substr');
    case 'intersection':
      return Array.isArray(v) && v.every((x) => coercible(info, x)) ? [] : bad('validate.list');
    case 'range': {
      if (!Array.isArray(v) || v.length !== 2) return bad('validate.range');
      const [a, b] = v as unknown[];
      const set = [a, b].filter((x) => x !== null && x !== undefined);
      if (!set.length) return bad('validate.rangeEmpty');
      return set.every((x) => coercible(info, x)) ? [] : bad();
    }
    case 'exists':
      return [];
  }
}

/** A candidate request (any JSON) checked for `r`; the request when it is valid. */
export function validateSearch(r: ResourceDef, candidate: unknown): { request: SearchRequest | null; issues: Issue[] } {
  const parsed = searchRequestSchema.safeParse(candidate);
  if (!parsed.success) return { request: null, issues: zodIssues(parsed.error) };
  const req = parsed.data;
  const issues: Issue[] = [];
  req.include_fields.forEach((n, i) => !fieldOf(r, n) && issues.push({ path: `include_fields.${i}`, key: 'validate.unknownField', values: { name: n } }));
  req.exclude_fields.forEach((n, i) => !fieldOf(r, n) && issues.push({ path: `exclude_fields.${i}`, key: 'validate.unknownField', values: { name: n } }));
  req.filters.forEach((f, i) => issues.push(...filterIssues(r, f, `filters.${i}`)));
  req.ordering.forEach((o, i) => {
    const info = fieldOf(r, o.field);
    if (!info) issues.push({ path: `ordering.${i}.field`, key: 'validate.unknownField', values: { name: o.field } });
    else if (info.kind === 'json' || info.def?.secret) issues.push({ path: `ordering.${i}.field`, key: 'validate.notSortable', values: { name: o.field } });
  });
  req.relations.forEach((n, i) => !r.relations?.[n] && issues.push({ path: `relations.${i}`, key: 'validate.unknownRelation', values: { name: n } }));
  (req._relations ?? []).forEach((n, i) => {
    const rel = r.relations?.[n];
    if (!rel) issues.push({ path: `_relations.${i}`, key: 'validate.unknownRelation', values: { name: n } });
    else if (rel.kind === 'belongsTo') issues.push({ path: `_relations.${i}`, key: 'validate.idRelation', values: { name: n } });
  });
  return { request: issues.length ? null : req, issues };
}

/**
 * Where a text stops being JSON: the offset of the first character that cannot continue it (the
 * text's length when it ends too early), or null when it is JSON. Its own scan, so the place is
 * the same whatever engine runs the console.
 */
export function jsonErrorOffset(s: string): number | null {
  let i = 0;
  const fail = (at: number): never => {
    throw new JsonStop(at);
  };
  const ws = () => {
    while (i < s.length && ' \t\n\r'.includes(s[i]!)) i++;
  };
  const expect = (c: string) => (s[i] === c ? i++ : fail(i));
  const str = () => {
    expect('"');
    while (i < s.length) {
      const c = s[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        const e = s[i + 1];
        if (e === undefined) fail(s.length);
        if (e === 'u') {
          for (let k = 2; k < 6; k++) if (!/[0-9a-fA-F]/.test(s[i + k] ?? '')) fail(Math.min(i + k, s.length));
          i += 6;
        } else if ('"\\/bfnrt'.includes(e!)) i += 2;
        else fail(i + 1);
        continue;
      }
      if (c < ' ') fail(i);
      i++;
    }
    fail(s.length);
  };
  const value = (): void => {
    ws();
    const c = s[i];
    if (c === undefined) fail(i);
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        str();
        ws();
        expect(':');
        value();
        ws();
        if (s[i] === ',') i++;
        else return void expect('}');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (s[i] === ',') i++;
        else return void expect(']');
      }
    }
    if (c === '"') return str();
    for (const word of ['true', 'false', 'null']) {
      if (c === word[0]) {
        for (let k = 0; k < word.length; k++) if (s[i + k] !== word[k]) fail(Math.min(i + k, s.length));
        i += word.length;
        return;
      }
    }
    const num = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    num.lastIndex = i;
    const m = num.exec(s);
    if (!m) fail(c === '-' ? i + 1 : i);
    i += m![0].length;
    // "1." or "1e": the part after the number's last complete piece is the mistake
    if (s[i] === '.' || s[i] === 'e' || s[i] === 'E') fail(Math.min(i + 1, s.length));
  };
  try {
    value();
    ws();
    if (i < s.length) fail(i);
    return null;
  } catch (e) {
    if (e instanceof JsonStop) return e.at;
    throw e;
  }
}

class JsonStop {
  constructor(readonly at: number) {}
}

/** The issue for text that is not JSON: line and column (from 1) and the line with a marker. */
export function jsonIssue(text: string, fallback: string): Issue {
  const at = jsonErrorOffset(text);
  if (at === null) return { path: '', key: 'validate.json', values: { message: fallback } };
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const endNl = text.indexOf('\n', at);
  const lineText = text.slice(start, endNl < 0 ? text.length : endNl).replace(/\r$/, '');
  const line = text.slice(0, start).split('\n').length;
  const column = at - start + 1;
  // A long line is shown around the place.
  const from = Math.max(0, column - 1 - 40);
  const to = Math.min(lineText.length, column - 1 + 30);
  const shown = `${from > 0 ? '…' : ''}${lineText.slice(from, to)}${to < lineText.length ? '…' : ''}`;
  const caret = column - 1 - from + (from > 0 ? 1 : 0);
  const end = at >= text.length;
  return {
    path: '',
    key: end ? 'validate.jsonEnd' : 'validate.jsonChar',
    values: { line, column, char: text[at] ?? '' },
    marker: { text: shown, column: caret },
  };
}
