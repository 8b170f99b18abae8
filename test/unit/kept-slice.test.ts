// Which conditions the kept per-day counts answer: one rule (sliceOf) for the conditions of both
// compilers, the v2 search's filters and the public API's standard filters.
import { describe, expect, it } from 'vitest';
import { publicEntity, publicResource } from '../../src-shared/public/entities';
import { parseStandardQuery } from '../../src-shared/public/standard-filters';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch, type SearchFilter } from '../../src-shared/schemas/search';
import { compileSearchPlan } from '../../src-main/store/query/plan';
import { compileStandardQuery } from '../../src-main/store/query/standard';

const I = getResource('service_asset_findings');
const PUBLIC_INCIDENTS = publicResource(publicEntity('incidents')!);
const v2 = (filters: SearchFilter[], text = '', r = I) => compileSearchPlan(r, { ...emptySearch(), filters, virtual_search: { value: text, strict: false } }).tally;
const standard = (qs: string) => compileStandardQuery(PUBLIC_INCIDENTS, parseStandardQuery(Object.fromEntries(new URLSearchParams(qs).entries()) as Record<string, string>)).tally;
const DAY = '2026-03-01T00:00:00.000000Z';
const F1 = '00000000-0000-4000-8000-0000000000f1';
const F2 = '00000000-0000-4000-8000-0000000000f2';
const A = '00000000-0000-4000-8000-0000000000a1';

describe('a plan as a slice of the kept counts (tally)', () => {
  it('takes statuses, creation-time bounds, risk bands at their starts and one owner or group column from a v2 search', () => {
    expect(v2([])).toEqual({ statuses: null });
    expect(
      v2([
        { field: 'status', filter_type: 'intersection', value: ['new', 'closed'] },
        { field: 'status', filter_type: 'equal', value: 'new' },
        { field: 'created_at', filter_type: 'range', value: [DAY, null] },
      ]),
    ).toEqual({ statuses: ['new'], lower: { ts: DAY, strict: false } });
    expect(v2([{ field: 'risklevel', filter_type: 'range', value: [7, null] }])).toEqual({ statuses: null, risks: ['high', 'critical'] });
    expect(v2([{ field: 'risklevel', filter_type: 'range', value: [7, null], negation: true }])).toEqual({ statuses: null, risks: ['none', 'low', 'medium'] });
    expect(v2([{ field: 'risklevel', filter_type: 'range', value: [null, 0] }])).toEqual({ statuses: null, risks: ['none'] });
    expect(v2([{ field: 'user_id', filter_type: 'exists' }])).toEqual({ statuses: null, key: { column: 'user_id', values: [null] } });
  });

  it('takes the stored band (risk) as bands that hold while it follows risklevel, with the risklevel bounds', () => {
    expect(v2([{ field: 'risk', filter_type: 'equal', value: 'critical' }])).toEqual({ statuses: null, risks: ['critical'], storedRisk: true });
    expect(
      v2([
        { field: 'risk', filter_type: 'intersection', value: ['low', 'high', 'critical'] },
        { field: 'risklevel', filter_type: 'range', value: [7, null], negation: true },
        { field: 'status', filter_type: 'equal', value: 'new' },
      ]),
    ).toEqual({ statuses: ['new'], risks: ['low'], storedRisk: true });
    expect(standard('risk=in,none,medium&user_id=isnull')).toEqual({ statuses: null, risks: ['none', 'medium'], storedRisk: true, key: { column: 'user_id', values: [null] } });
    expect(v2([{ field: 'risk', filter_type: 'equal', value: 'critical', negation: true }])).toBeUndefined();
    expect(v2([{ field: 'risk', filter_type: 'exists' }])).toBeUndefined();
  });

  it('takes a finding type or an asset with statuses and bands (the per-value counts), never with a range, owner or group', () => {
    expect(
      v2([
        { field: 'finding_id', filter_type: 'intersection', value: [F1, F2] },
        { field: 'finding_id', filter_type: 'equal', value: F2 },
        { field: 'risklevel', filter_type: 'range', value: [9, null] },
        { field: 'status', filter_type: 'equal', value: 'new' },
      ]),
    ).toEqual({ statuses: ['new'], risks: ['critical'], value: { column: 'finding_id', values: [F2] } });
    expect(standard('service_asset_id=isnull&risk=eq,low')).toEqual({ statuses: null, risks: ['low'], storedRisk: true, value: { column: 'service_asset_id', values: [null] } });
    expect(v2([{ field: 'service_asset_id', filter_type: 'equal', value: A }, { field: 'created_at', filter_type: 'range', value: [DAY, null] }])).toBeUndefined();
    expect(v2([{ field: 'finding_id', filter_type: 'equal', value: F1 }, { field: 'user_id', filter_type: 'exists' }])).toBeUndefined();
    expect(v2([{ field: 'finding_id', filter_type: 'equal', value: F1 }, { field: 'service_asset_id', filter_type: 'equal', value: A }])).toBeUndefined();
    expect(v2([{ field: 'finding_id', filter_type: 'equal', value: F1, negation: true }])).toBeUndefined();
  });

  it('is absent for any other condition of a v2 search', () => {
    for (const f of [
      { field: 'risklevel', filter_type: 'range', value: [7, 9] },
      { field: 'risklevel', filter_type: 'range', value: [5, null] },
      { field: 'created_at', filter_type: 'range', value: [DAY, null], negation: true },
      { field: 'status', filter_type: 'equal', value: 'new', negation: true },
      { field: 'updated_at', filter_type: 'range', value: [DAY, null] },
      { field: 'title', filter_type: 'substr', value: 'SSH' },
    ] as SearchFilter[]) {
      expect(v2([f]), JSON.stringify(f)).toBeUndefined();
    }
    expect(v2([], 'пароль')).toBeUndefined();
    expect(
      v2([
        { field: 'user_id', filter_type: 'exists' },
        { field: 'group_id', filter_type: 'exists' },
      ]),
    ).toBeUndefined();
    expect(v2([], '', getResource('service_assets'))).toBeUndefined();
  });

  it('is the same slice for the same conditions from either compiler', () => {
    expect(standard('status=in,new,closed&user_id=in,a,b')).toEqual(
      v2([
        { field: 'status', filter_type: 'intersection', value: ['new', 'closed'] },
        { field: 'user_id', filter_type: 'intersection', value: ['a', 'b'] },
      ]),
    );
    expect(standard('group_id=isnull&status=eq,new')).toEqual(
      v2([
        { field: 'group_id', filter_type: 'exists' },
        { field: 'status', filter_type: 'equal', value: 'new' },
      ]),
    );
    // The public filters' bounds are strict (gt, lt); at the same instant the strict one holds.
    expect(standard(`created_at=gt,${DAY}`)).toEqual({ statuses: null, lower: { ts: DAY, strict: true } });
    expect(standard('risklevel=gt,7')).toBeUndefined();
    expect(standard('status=notin,new')).toBeUndefined();
  });
});
