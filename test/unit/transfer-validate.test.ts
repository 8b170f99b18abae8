// The write path's fast field checks answer as the registry's zod schemas do, for every field of
// every resource; the timestamp shortcut answers as normalizeTs does.
import { describe, expect, it } from 'vitest';
import { detectKind, kindByName, kindFromFileName } from '../../src-main/transfer/kinds';
import { checkField, columnPlanOf as planOf, fastTs, FieldInvalid } from '../../src-main/store/write/checks';
import { RESOURCES, getResource } from '../../src-shared/resources/index';
import { fieldInputSchema } from '../../src-shared/schemas/resource';
import { normalizeTs } from '../../src-shared/time';

const SAMPLES: unknown[] = [
  null,
  undefined,
  '',
  'x',
  'new',
  'closed',
  'high',
  'Host',
  'a'.repeat(251),
  'ABCDEF01-2345-4678-89AB-CDEF01234567',
  '6f1c1b8e-2f0f-4a44-9a39-000000000001',
  'not-a-uuid',
  '2024-01-01',
  '2024-02-29T12:00:00Z',
  '2023-02-29T12:00:00Z',
  '2023-12-20T00:00:01.652259Z',
  '2023-12-20T00:00:01.652259+03:00',
  'yesterday',
  0,
  1,
  -1,
  5,
  7.5,
  10,
  10.5,
  11,
  65535,
  65536,
  1000,
  9999,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  [],
  ['a'],
  [1, 2],
  [{ name: 'login', type: 'string', is_key: true }],
  {},
  { a: 1 },
  { result_count: 1, error_count: 0 },
];

describe('fast field checks', () => {
  for (const r of RESOURCES) {
    it(`answer as the zod schemas do for every field of ${r.name}`, () => {
      const plan = planOf(r);
      for (const col of plan.columns) {
        const schema = fieldInputSchema(col.name, col.def);
        for (const v of SAMPLES) {
          if (v === undefined) continue;
          const want = schema.safeParse(v);
          let got: { ok: true; value: unknown } | { ok: false; message: string };
          try {
            got = { ok: true, value: checkField(plan, col, v) };
          } catch (e) {
            expect(e).toBeInstanceOf(FieldInvalid);
            got = { ok: false, message: (e as Error).message };
          }
          const label = `${r.name}.${col.name} = ${JSON.stringify(v)}`;
          expect(got.ok, label).toBe(want.success);
          if (want.success && got.ok) {
            const expected = col.def.ref && typeof want.data === 'string' ? want.data.toLowerCase() : want.data;
            expect(got.value, label).toEqual(expected);
          }
          if (!want.success && !got.ok) expect(got.message, label).toBe(want.error.issues[0]!.message);
        }
      }
    });
  }
});

describe('timestamps', () => {
  it('the shortcut for the platform form answers as normalizeTs', () => {
    const cases = [
      '2023-12-20T00:00:01.652259Z',
      '2024-02-29T23:59:59.999999Z',
      '2023-02-29T00:00:00.000000Z',
      '2100-02-29T00:00:00.000000Z',
      '2000-02-29T00:00:00.000000Z',
      '2023-13-01T00:00:00.000000Z',
      '2023-04-31T00:00:00.000000Z',
      '2023-04-30T24:00:00.000000Z',
      '2023-04-30T23:60:00.000000Z',
      '2023-04-30T23:59:60.000000Z',
      '0999-01-01T00:00:00.000000Z',
      '0050-01-01T00:00:00.000000Z',
      '2023-1a-01T00:00:00.000000Z',
      '2023-12-20T00:00:01.65225xZ',
      '2023-12-20 00:00:01.652259Z',
      '2023-12-20T00:00:01Z',
    ];
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const p = (n: number, w: number) => String(n).padStart(w, '0');
      cases.push(`${p(1000 + rnd(9000), 4)}-${p(rnd(14), 2)}-${p(rnd(33), 2)}T${p(rnd(26), 2)}:${p(rnd(62), 2)}:${p(rnd(62), 2)}.${p(rnd(1_000_000), 6)}Z`);
    }
    for (const c of cases) expect(fastTs(c), c).toBe(normalizeTs(c));
  });
});

describe('kinds', () => {
  it('names: resources, public lists, the vendor aliases, file names', () => {
    expect(kindByName('incidents')?.name).toBe('service_asset_findings');
    expect(kindByName('serviceAssets')?.name).toBe('service_assets');
    expect(kindByName('logmule_go_rules')?.name).toBe('engine_go_rules');
    expect(kindByName('nope')).toBeUndefined();
    expect(kindFromFileName('/x/service_asset_findings-20240101T000000Z.ndjson')?.name).toBe('service_asset_findings');
    expect(kindFromFileName('export.zip:data/service_asset_finding_status_changes.json')?.name).toBe('service_asset_finding_status_changes');
    expect(kindFromFileName('incidents.json')?.name).toBe('service_asset_findings');
    expect(kindFromFileName('findings_old.json')).toBeUndefined();
    expect(kindFromFileName('export.json')).toBeUndefined();
  });

  it('records: incidents, public incidents with their extras, occurrences; ambiguity is an error', () => {
    const inc = { id: 'x', status: 'new', risklevel: 5, finding_id: null, title: 't' };
    expect(detectKind(inc, undefined, false)).toEqual({ r: getResource('service_asset_findings') });
    expect(detectKind({ ...inc, service_asset_name: 'a', front_link: 'u', service_asset: {}, occurrences: [] }, undefined, false)).toEqual({
      r: getResource('service_asset_findings'),
    });
    expect(detectKind({ event_type: 'manual_source', ip: '10.0.0.1', port: 22 }, undefined, false)).toEqual({ r: getResource('occurrences') });
    expect(detectKind({ name: 'x' }, undefined, false)).toMatchObject({ error: expect.stringMatching(/fits .*name it with --kind/) });
    expect(detectKind({ name: 'x' }, getResource('agents'), false)).toEqual({ r: getResource('agents') });
    expect(detectKind({ ...inc, zzz: 1 }, undefined, false)).toMatchObject({ error: expect.stringMatching(/no resource has all its fields \(closest: service_asset_findings, which has no zzz\)/) });
    expect(detectKind({ ...inc, zzz: 1 }, undefined, true)).toEqual({ r: getResource('service_asset_findings') });
  });
});
