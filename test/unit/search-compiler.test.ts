// The search compiler (spec: "Search request"): every filter type, ordering, virtual search,
// tree extension, field selection, relation loading, paging, errors and injection safety,
// checked against a small known dataset in an in-memory database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src-shared/errors';
import { getResource } from '../../src-shared/resources/index';
import { emptySearch, type SearchFilter, type SearchRequest } from '../../src-shared/schemas/search';
import { openDatabase, type Db } from '../../src-main/store/db';
import { compileSearch, filterSql, whereSql } from '../../src-main/store/search';
import { Store, type Rec } from '../../src-main/store/store';
import { Runner } from '../../src-main/store/query/runner';

const A = getResource('service_assets');
const F = getResource('findings');
const I = getResource('service_asset_findings');
const RG = getResource('responsible_groups');
const SG = getResource('software_groups');
const SW = getResource('software');
const R = getResource('engine_go_rules');
const O = getResource('occurrences');

/** Runs fn and answers the ApiError it throws (fails the test when it throws nothing or something else). */
function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

interface Data {
  store: Store;
  db: Db;
  // findings
  fLogin: string;
  fBrute: string;
  fMalware: string;
  fYolka: string;
  // assets
  aDb: string;
  aWeb: string;
  aWs: string;
  // incidents
  iBrute: string;
  iLogin: string;
  iTrojan: string;
  iScan: string;
  // responsible groups
  rgSoc: string;
  rgNet: string;
  rgIb: string;
  rgChild: string;
  // software groups
  sgRoot: string;
  sgBrowsers: string;
  sgChromium: string;
  sgOffice: string;
  // software
  swChrome: string;
  swFirefox: string;
  swLibre: string;
  swNotepad: string;
  // correlation rule
  rule: string;
  // occurrences of iBrute
  occ1: string;
  occ2: string;
}

function build(): Data {
  const { db } = openDatabase(':memory:');
  const store = new Store(db);
  const id = (rec: Rec) => rec.id as string;

  const rgSoc = id(store.create(RG, { name: 'SOC', user_ids: ['u1', 'u2'], email: 'soc@bank.ru' }));
  const rgNet = id(store.create(RG, { name: 'Сеть', user_ids: ['u3'] }));
  const rgIb = id(store.create(RG, { name: 'ИБ' }));
  const rgChild = id(store.create(RG, { name: 'SOC L2', parent_group: rgSoc, user_ids: ['u4'] }));

  const sgRoot = id(store.create(SG, { name: 'Системное ПО' }));
  const sgBrowsers = id(store.create(SG, { name: 'Браузеры', parent_id: sgRoot, description: 'Веб-браузеры' }));
  const sgChromium = id(store.create(SG, { name: 'Chromium-based', parent_id: sgBrowsers }));
  const sgOffice = id(store.create(SG, { name: 'Офис' }));

  const swChrome = id(store.create(SW, { name: 'Google Chrome', version: '120.0', software_group_id: sgChromium }));
  const swFirefox = id(store.create(SW, { name: 'Firefox', version: '115.6esr', software_group_id: sgBrowsers }));
  const swLibre = id(store.create(SW, { name: 'LibreOffice', version: '7.6', software_group_id: sgOffice }));
  const swNotepad = id(store.create(SW, { name: 'Notepad++', version: '8.6' }));

  const fLogin = id(store.create(F, { title: 'Подозрительный вход', type: 'network_anomaly', cpes: ['cpe:/a:openssh:openssh:8.2', 'cpe:/o:linux:linux_kernel'] }));
  const fBrute = id(store.create(F, { title: 'Brute force SSH', type: 'brute', cpes: ['cpe:/a:openssh:openssh:8.2'] }));
  const fMalware = id(store.create(F, { title: 'Вредоносное ПО', description: 'Обнаружен исполняемый файл', cpes: [] }));
  const fYolka = id(store.create(F, { title: 'Ёлка ЁЖИК', type: 'network_anomaly' }));

  const aDb = id(
    store.create(A, {
      name: 'Сервер БД',
      type: 'Host',
      location: 'Москва',
      value: 1,
      responsible_group_id: rgSoc,
      _relations: { software: [swChrome, swLibre] },
    }),
  );
  const aWeb = id(
    store.create(A, { name: 'Web-сервер', type: 'Host', location: 'Санкт-Петербург', value: 2, _relations: { software: [swFirefox] } }),
  );
  const aWs = id(store.create(A, { name: 'Рабочая станция', type: 'Workstation', description: 'ПК бухгалтерии' }));

  const rule = id(store.create(R, { name: 'Обнаружение брутфорса', _relations: { software_groups: [sgRoot] } }));

  const iBrute = id(
    store.create(
      I,
      { title: 'Подбор пароля SSH', status: 'new', risklevel: 7.5, service_asset_id: aDb, finding_id: fBrute, alert_type: 'automatic', _relations: { engine_go_rules: [rule] } },
      { at: '2024-01-10T08:00:00.000000Z' },
    ),
  );
  const iLogin = id(
    store.create(I, { title: 'Вход с нового IP', status: 'closed', risklevel: 3, service_asset_id: aDb, finding_id: fLogin }, { at: '2024-02-15T12:00:00.000000Z' }),
  );
  const iTrojan = id(
    store.create(
      I,
      { title: 'Обнаружен троян', status: 'working_customer', risklevel: 9.8, service_asset_id: aWeb, finding_id: fMalware, alert_type: 'manual' },
      { at: '2024-03-20T18:30:00.000000Z' },
    ),
  );
  const iScan = id(store.create(I, { title: 'Сканирование портов', status: 'new', risklevel: 0, finding_id: fLogin }, { at: '2024-04-01T00:00:00.000000Z' }));

  const occ1 = id(store.create(O, { event_type: 'manual_source', ip: '10.0.0.5', service_asset_finding_id: iBrute }));
  const occ2 = id(store.create(O, { event_type: 'engine_go_result', ip: '10.0.0.6', service_asset_finding_id: iBrute }));

  return {
    store,
    db,
    fLogin,
    fBrute,
    fMalware,
    fYolka,
    aDb,
    aWeb,
    aWs,
    iBrute,
    iLogin,
    iTrojan,
    iScan,
    rgSoc,
    rgNet,
    rgIb,
    rgChild,
    sgRoot,
    sgBrowsers,
    sgChromium,
    sgOffice,
    swChrome,
    swFirefox,
    swLibre,
    swNotepad,
    rule,
    occ1,
    occ2,
  };
}

let d: Data;
beforeAll(() => {
  d = build();
});
afterAll(() => d.db.close());

function search(r = I, patch: Partial<SearchRequest> = {}) {
  return new Runner(d.store).search(r, { ...emptySearch(100), ...patch });
}

/** Ids matched by the given filters, as a sorted list. */
function ids(r: typeof I, ...filters: SearchFilter[]): string[] {
  return search(r, { filters })
    .items.map((x) => x.id as string)
    .sort();
}

const sorted = (...xs: string[]) => [...xs].sort();

describe('equal', () => {
  it('matches a string field exactly', () => {
    expect(ids(A, { field: 'location', filter_type: 'equal', value: 'Москва' })).toEqual([d.aDb]);
  });

  it('is case-sensitive (equal is not substr)', () => {
    expect(ids(A, { field: 'location', filter_type: 'equal', value: 'москва' })).toEqual([]);
  });

  it('matches an int field, also given as a numeric string', () => {
    expect(ids(A, { field: 'value', filter_type: 'equal', value: 2 })).toEqual([d.aWeb]);
    expect(ids(A, { field: 'value', filter_type: 'equal', value: '2' })).toEqual([d.aWeb]);
  });

  it('matches a number field', () => {
    expect(ids(I, { field: 'risklevel', filter_type: 'equal', value: 7.5 })).toEqual([d.iBrute]);
  });

  it('matches a uuid field', () => {
    expect(ids(I, { field: 'finding_id', filter_type: 'equal', value: d.fLogin })).toEqual(sorted(d.iLogin, d.iScan));
  });

  it('matches a bool field given as true or "false"', () => {
    d.store.update(I, { id: d.iTrojan, external: true });
    try {
      expect(ids(I, { field: 'external', filter_type: 'equal', value: true })).toEqual([d.iTrojan]);
      expect(ids(I, { field: 'external', filter_type: 'equal', value: 'false' })).toEqual(sorted(d.iBrute, d.iLogin, d.iScan));
    } finally {
      d.store.update(I, { id: d.iTrojan, external: false });
    }
  });

  it('matches a timestamp given with an offset, after normalising it', () => {
    expect(ids(I, { field: 'created_at', filter_type: 'equal', value: '2024-02-15T15:00:00+03:00' })).toEqual([d.iLogin]);
  });

  it('matches a computed field', () => {
    expect(ids(A, { field: 'responsible_group_name', filter_type: 'equal', value: 'SOC' })).toEqual([d.aDb]);
  });

  it('with negation excludes the value and includes rows whose field is NULL', () => {
    expect(ids(A, { field: 'location', filter_type: 'equal', value: 'Москва', negation: true })).toEqual(sorted(d.aWeb, d.aWs));
    expect(ids(A, { field: 'value', filter_type: 'equal', value: 1, negation: true })).toEqual(sorted(d.aWeb, d.aWs));
    expect(ids(I, { field: 'service_asset_id', filter_type: 'equal', value: d.aDb, negation: true })).toEqual(sorted(d.iTrojan, d.iScan));
  });

  it('with negation: false behaves like no negation', () => {
    expect(ids(A, { field: 'location', filter_type: 'equal', value: 'Москва', negation: false })).toEqual([d.aDb]);
  });
});

describe('substr', () => {
  it('folds Cyrillic case: upper-case value finds lower-case text (ВХОД → Подозрительный вход)', () => {
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'ВХОД' })).toEqual([d.fLogin]);
  });

  it('folds Cyrillic case: lower-case value finds upper-case text', () => {
    expect(ids(I, { field: 'title', filter_type: 'substr', value: 'подбор пароля ssh' })).toEqual([d.iBrute]);
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'ёжик' })).toEqual([d.fYolka]);
  });

  it('finds Latin text in any case', () => {
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'FORCE' })).toEqual([d.fBrute]);
  });

  it('matches in the middle of a word', () => {
    expect(ids(I, { field: 'title', filter_type: 'substr', value: 'наруж' })).toEqual([d.iTrojan]);
  });

  it('with two characters (below the trigram size) still matches and folds Cyrillic', () => {
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'ВХ' })).toEqual([d.fLogin]);
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'по' })).toEqual(sorted(d.fLogin, d.fMalware));
  });

  it('with one character still matches and folds Cyrillic (ё → Ёлка)', () => {
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'ё' })).toEqual([d.fYolka]);
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'h' })).toEqual([d.fBrute]);
  });

  it('looks only at the named field', () => {
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'исполняемый' })).toEqual([]);
    expect(ids(F, { field: 'description', filter_type: 'substr', value: 'ИСПОЛНЯЕМЫЙ' })).toEqual([d.fMalware]);
  });

  it('works on a computed string field', () => {
    expect(ids(A, { field: 'responsible_group_name', filter_type: 'substr', value: 'so' })).toEqual([d.aDb]);
  });

  it('works on a string field kept out of the search index (coordinates), folding case', () => {
    expect(ids(A, { field: 'coordinates', filter_type: 'substr', value: '--- [' })).toHaveLength(3);
    d.store.update(A, { id: d.aWs, coordinates: '--- [Этаж 3]' });
    try {
      expect(ids(A, { field: 'coordinates', filter_type: 'substr', value: 'ЭТАЖ' })).toEqual([d.aWs]);
    } finally {
      d.store.update(A, { id: d.aWs, coordinates: '--- []' });
    }
  });

  it('with an empty value matches everything', () => {
    expect(ids(F, { field: 'title', filter_type: 'substr', value: '' })).toHaveLength(4);
  });

  it('with negation excludes matches and includes rows whose field is NULL', () => {
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'ВХОД', negation: true })).toEqual(sorted(d.fBrute, d.fMalware, d.fYolka));
    expect(ids(F, { field: 'description', filter_type: 'substr', value: 'файл', negation: true })).toEqual(sorted(d.fLogin, d.fBrute, d.fYolka));
    expect(ids(F, { field: 'description', filter_type: 'substr', value: 'ф', negation: true })).toEqual(sorted(d.fLogin, d.fBrute, d.fYolka));
  });

  it('follows updates and deletions of the searched text', () => {
    const rec = d.store.create(F, { title: 'Аномальный трафик DNS' });
    try {
      expect(ids(F, { field: 'title', filter_type: 'substr', value: 'ТРАФИК' })).toEqual([rec.id]);
      d.store.update(F, { id: rec.id as string, title: 'Туннелирование через DNS' });
      expect(ids(F, { field: 'title', filter_type: 'substr', value: 'ТРАФИК' })).toEqual([]);
      expect(ids(F, { field: 'title', filter_type: 'substr', value: 'туннел' })).toEqual([rec.id]);
    } finally {
      d.store.delete(F, rec.id as string);
    }
    expect(ids(F, { field: 'title', filter_type: 'substr', value: 'туннел' })).toEqual([]);
  });

  it('finds text containing quotes and FTS operators literally', () => {
    const rec = d.store.create(F, { title: `O'Brien "NEAR" AND * test` });
    try {
      expect(ids(F, { field: 'title', filter_type: 'substr', value: `'Brien "near" and *` })).toEqual([rec.id]);
      expect(ids(F, { field: 'title', filter_type: 'substr', value: `"N` })).toEqual([rec.id]);
      expect(ids(F, { field: 'title', filter_type: 'substr', value: 'NEAR(a b)' })).toEqual([]);
    } finally {
      d.store.delete(F, rec.id as string);
    }
  });
});

describe('intersection', () => {
  it('on a scalar field: the value is one of the list', () => {
    expect(ids(I, { field: 'status', filter_type: 'intersection', value: ['new', 'closed'] })).toEqual(sorted(d.iBrute, d.iLogin, d.iScan));
  });

  it('on a scalar field with negation: not in the list, NULLs included', () => {
    expect(ids(I, { field: 'status', filter_type: 'intersection', value: ['new', 'closed'], negation: true })).toEqual([d.iTrojan]);
    expect(ids(A, { field: 'location', filter_type: 'intersection', value: ['Москва'], negation: true })).toEqual(sorted(d.aWeb, d.aWs));
  });

  it('on an int field coerces numeric strings', () => {
    expect(ids(A, { field: 'value', filter_type: 'intersection', value: [1, '2'] })).toEqual(sorted(d.aDb, d.aWeb));
  });

  it('on a JSON-array field (findings.cpes): any element in common', () => {
    expect(ids(F, { field: 'cpes', filter_type: 'intersection', value: ['cpe:/o:linux:linux_kernel'] })).toEqual([d.fLogin]);
    expect(ids(F, { field: 'cpes', filter_type: 'intersection', value: ['cpe:/a:openssh:openssh:8.2', 'cpe:/a:nope'] })).toEqual(sorted(d.fLogin, d.fBrute));
  });

  it('on a JSON-array field (responsible_groups.user_ids)', () => {
    expect(ids(RG, { field: 'user_ids', filter_type: 'intersection', value: ['u2', 'u3'] })).toEqual(sorted(d.rgSoc, d.rgNet));
  });

  it('on a JSON-array field with negation: no element in common, empty arrays included', () => {
    expect(ids(RG, { field: 'user_ids', filter_type: 'intersection', value: ['u2', 'u3'], negation: true })).toEqual(sorted(d.rgIb, d.rgChild));
  });

  it('with an empty list matches nothing (with negation: everything)', () => {
    expect(ids(I, { field: 'status', filter_type: 'intersection', value: [] })).toEqual([]);
    expect(ids(I, { field: 'status', filter_type: 'intersection', value: [], negation: true })).toHaveLength(4);
  });

  it('with more values than the inline limit (json_each path)', () => {
    const many = Array.from({ length: 100 }, (_, i) => `status-${i}`).concat(['working_customer']);
    expect(ids(I, { field: 'status', filter_type: 'intersection', value: many })).toEqual([d.iTrojan]);
  });
});

describe('range', () => {
  it('on numbers with both bounds, inclusive', () => {
    expect(ids(I, { field: 'risklevel', filter_type: 'range', value: [7.5, 10] })).toEqual(sorted(d.iBrute, d.iTrojan));
  });

  it('on numbers with an open lower bound', () => {
    expect(ids(I, { field: 'risklevel', filter_type: 'range', value: [null, 3] })).toEqual(sorted(d.iLogin, d.iScan));
  });

  it('on ints with an open upper bound', () => {
    expect(ids(A, { field: 'value', filter_type: 'range', value: [2, null] })).toEqual([d.aWeb]);
  });

  it('on timestamps with an open upper bound, the bound given with an offset', () => {
    expect(ids(I, { field: 'created_at', filter_type: 'range', value: ['2024-02-15T15:00:00+03:00', null] })).toEqual(sorted(d.iLogin, d.iTrojan, d.iScan));
  });

  it('on timestamps with an open lower bound, the bound given as a date', () => {
    expect(ids(I, { field: 'created_at', filter_type: 'range', value: [null, '2024-02-15'] })).toEqual([d.iBrute]);
  });

  it('on timestamps with both bounds', () => {
    expect(ids(I, { field: 'created_at', filter_type: 'range', value: ['2024-01-10T08:00:00Z', '2024-03-20T18:30:00Z'] })).toEqual(sorted(d.iBrute, d.iLogin, d.iTrojan));
  });

  it('with negation: outside the range, NULLs included', () => {
    expect(ids(A, { field: 'value', filter_type: 'range', value: [1, 1], negation: true })).toEqual(sorted(d.aWeb, d.aWs));
  });
});

describe('related', () => {
  it('on a belongsTo relation by relation name', () => {
    expect(ids(I, { field: 'service_asset', filter_type: 'related', value: [d.aDb] })).toEqual(sorted(d.iBrute, d.iLogin));
  });

  it('on a belongsTo relation by its fk field name', () => {
    expect(ids(I, { field: 'service_asset_id', filter_type: 'related', value: [d.aDb] })).toEqual(sorted(d.iBrute, d.iLogin));
  });

  it('accepts a single id string', () => {
    expect(ids(I, { field: 'finding', filter_type: 'related', value: d.fMalware })).toEqual([d.iTrojan]);
  });

  it('with several ids matches any of them', () => {
    expect(ids(I, { field: 'service_asset', filter_type: 'related', value: [d.aWeb, d.aWs] })).toEqual([d.iTrojan]);
  });

  it('on a hasMany relation', () => {
    expect(ids(A, { field: 'service_asset_findings', filter_type: 'related', value: [d.iTrojan] })).toEqual([d.aWeb]);
    expect(ids(I, { field: 'occurrences', filter_type: 'related', value: [d.occ2] })).toEqual([d.iBrute]);
  });

  it('on a manyToMany relation, from either side', () => {
    expect(ids(A, { field: 'software', filter_type: 'related', value: [d.swLibre] })).toEqual([d.aDb]);
    expect(ids(SW, { field: 'service_assets', filter_type: 'related', value: [d.aDb] })).toEqual(sorted(d.swChrome, d.swLibre));
    expect(ids(I, { field: 'engine_go_rules', filter_type: 'related', value: [d.rule] })).toEqual([d.iBrute]);
  });

  it('with negation on a relation with ids', () => {
    expect(ids(A, { field: 'software', filter_type: 'related', value: [d.swLibre], negation: true })).toEqual(sorted(d.aWeb, d.aWs));
  });

  it('with [] finds records without related entities (belongsTo, hasMany, manyToMany)', () => {
    expect(ids(I, { field: 'service_asset', filter_type: 'related', value: [] })).toEqual([d.iScan]);
    expect(ids(A, { field: 'service_asset_findings', filter_type: 'related', value: [] })).toEqual([d.aWs]);
    expect(ids(A, { field: 'software', filter_type: 'related', value: [] })).toEqual([d.aWs]);
  });

  it('with [] and negation finds records with some related entity', () => {
    expect(ids(I, { field: 'service_asset', filter_type: 'related', value: [], negation: true })).toEqual(sorted(d.iBrute, d.iLogin, d.iTrojan));
    expect(ids(A, { field: 'service_asset_findings', filter_type: 'related', value: [], negation: true })).toEqual(sorted(d.aDb, d.aWeb));
    expect(ids(A, { field: 'software', filter_type: 'related', value: [], negation: true })).toEqual(sorted(d.aDb, d.aWeb));
  });

  it('with filter-level children_all expands the target ids to their descendants', () => {
    const f: SearchFilter = { field: 'software_group', filter_type: 'related', value: [d.sgRoot] };
    expect(ids(SW, f)).toEqual([]);
    expect(ids(SW, { ...f, extension_params: { children_all: true, parents_all: false } })).toEqual(sorted(d.swChrome, d.swFirefox));
    expect(ids(SW, { ...f, extension_params: { chidlrens_all: true, parents_all: false } })).toEqual(sorted(d.swChrome, d.swFirefox));
  });

  it('with filter-level parents_all expands the target ids to their ancestors', () => {
    const f: SearchFilter = { field: 'software_group_id', filter_type: 'related', value: [d.sgBrowsers] };
    expect(ids(SW, f)).toEqual([d.swFirefox]);
    expect(ids(SW, { ...f, extension_params: { chidlrens_all: false, parents_all: true } })).toEqual([d.swFirefox]);
    expect(ids(SW, { ...f, value: [d.sgChromium], extension_params: { chidlrens_all: false, parents_all: true } })).toEqual(sorted(d.swChrome, d.swFirefox));
  });

  it('with filter-level children_all on a manyToMany relation to a tree resource', () => {
    // The rule is linked to the root group only; asking for rules of the Chromium group's
    // ancestors finds it.
    expect(ids(R, { field: 'software_groups', filter_type: 'related', value: [d.sgChromium] })).toEqual([]);
    expect(ids(R, { field: 'software_groups', filter_type: 'related', value: [d.sgChromium], extension_params: { chidlrens_all: false, parents_all: true } })).toEqual([d.rule]);
  });

  it('rejects an unknown relation, naming it', () => {
    const e = apiError(() => search(I, { filters: [{ field: 'no_such_link', filter_type: 'related', value: [] }] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('no_such_link');
  });

  it('rejects a non-uuid id, naming the relation', () => {
    const e = apiError(() => search(I, { filters: [{ field: 'service_asset', filter_type: 'related', value: ['not-a-uuid'] }] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('service_asset');
  });
});

describe('exists', () => {
  it('matches records whose field is null (spec: "the column equals null")', () => {
    expect(ids(I, { field: 'service_asset_id', filter_type: 'exists' })).toEqual([d.iScan]);
    expect(ids(A, { field: 'location', filter_type: 'exists' })).toEqual([d.aWs]);
    expect(ids(F, { field: 'type', filter_type: 'exists' })).toEqual([d.fMalware]);
  });

  it('with negation matches records whose field is not null', () => {
    expect(ids(I, { field: 'service_asset_id', filter_type: 'exists', negation: true })).toEqual(sorted(d.iBrute, d.iLogin, d.iTrojan));
    expect(ids(I, { field: 'alert_type', filter_type: 'exists', negation: true })).toEqual(sorted(d.iBrute, d.iTrojan));
  });

  it('works on a JSON field and a computed field', () => {
    expect(ids(A, { field: 'last_scan', filter_type: 'exists' })).toHaveLength(3);
    expect(ids(RG, { field: 'user_ids', filter_type: 'exists' })).toEqual([]);
  });
});

describe('several filters', () => {
  it('are combined with AND', () => {
    expect(
      ids(
        I,
        { field: 'status', filter_type: 'equal', value: 'new' },
        { field: 'risklevel', filter_type: 'range', value: [1, null] },
      ),
    ).toEqual([d.iBrute]);
  });

  it('combine with virtual_search', () => {
    const r = search(I, { filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], virtual_search: { value: 'порт', strict: false } });
    expect(r.items.map((x) => x.id)).toEqual([d.iScan]);
    expect(r.total).toBe(1);
  });
});

describe('ordering', () => {
  it('defaults to insertion order', () => {
    expect(search(I).items.map((x) => x.id)).toEqual([d.iBrute, d.iLogin, d.iTrojan, d.iScan]);
  });

  it('sorts by one key ascending and descending', () => {
    expect(search(I, { ordering: [{ field: 'risklevel', direction: 'asc' }] }).items.map((x) => x.id)).toEqual([d.iScan, d.iLogin, d.iBrute, d.iTrojan]);
    expect(search(I, { ordering: [{ field: 'risklevel', direction: 'desc' }] }).items.map((x) => x.id)).toEqual([d.iTrojan, d.iBrute, d.iLogin, d.iScan]);
  });

  it('sorts by several keys, the later ones breaking ties of the earlier', () => {
    const r = search(I, {
      ordering: [
        { field: 'status', direction: 'asc' },
        { field: 'risklevel', direction: 'desc' },
      ],
    });
    // closed < new (7.5, 0) < working_customer
    expect(r.items.map((x) => x.id)).toEqual([d.iLogin, d.iBrute, d.iScan, d.iTrojan]);
    const r2 = search(I, {
      ordering: [
        { field: 'status', direction: 'desc' },
        { field: 'risklevel', direction: 'asc' },
      ],
    });
    expect(r2.items.map((x) => x.id)).toEqual([d.iTrojan, d.iScan, d.iBrute, d.iLogin]);
  });

  it('sorts by a timestamp and by a computed field', () => {
    expect(search(I, { ordering: [{ field: 'created_at', direction: 'desc' }] }).items.map((x) => x.id)).toEqual([d.iScan, d.iTrojan, d.iLogin, d.iBrute]);
    const assets = search(A, { ordering: [{ field: 'all_open_count', direction: 'desc' }, { field: 'name', direction: 'asc' }] }).items;
    // aDb and aWeb both have one open incident; 'Web-сервер' sorts before 'Сервер БД'
    expect(assets.map((x) => x.id)).toEqual([d.aWeb, d.aDb, d.aWs]);
    const byRisk = search(A, { ordering: [{ field: 'risklevel', direction: 'desc' }] }).items;
    expect(byRisk.map((x) => [x.id, x.risklevel])).toEqual([
      [d.aWeb, 9.8],
      [d.aDb, 7.5],
      [d.aWs, 0],
    ]);
  });

  it('breaks ties deterministically: asc keeps insertion order, and paging one by one gives the same sequence', () => {
    const asc = search(I, { ordering: [{ field: 'status', direction: 'asc' }] }).items.map((x) => x.id);
    // the two `new` incidents keep their insertion order
    expect(asc.indexOf(d.iBrute)).toBeLessThan(asc.indexOf(d.iScan));
    for (const direction of ['asc', 'desc'] as const) {
      const ordering = [{ field: 'status', direction }];
      const all = search(I, { ordering }).items.map((x) => x.id);
      const paged = [0, 1, 2, 3].map((offset) => search(I, { ordering, limit: 1, offset }).items[0]?.id);
      expect(paged).toEqual(all);
      expect(search(I, { ordering }).items.map((x) => x.id)).toEqual(all);
    }
  });

  it('rejects an unknown ordering field, naming it', () => {
    const e = apiError(() => search(I, { ordering: [{ field: 'severity', direction: 'asc' }] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('severity');
  });

  it('rejects ordering by a JSON field', () => {
    const e = apiError(() => search(F, { ordering: [{ field: 'cpes', direction: 'asc' }] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('cpes');
  });
});

describe('virtual_search', () => {
  const vs = (r: typeof I, value: string, strict = false) =>
    search(r, { virtual_search: { value, strict } })
      .items.map((x) => x.id as string)
      .sort();

  it('non-strict: substring of any string field, folding Cyrillic case', () => {
    expect(vs(I, 'ПАРОЛ')).toEqual([d.iBrute]);
    expect(vs(A, 'петербург')).toEqual([d.aWeb]);
    expect(vs(A, 'БУХГАЛТЕР')).toEqual([d.aWs]); // description
  });

  it('non-strict: matches any of several fields', () => {
    // "сервер" is in two asset names, "Workstation" in a type
    expect(vs(A, 'СЕРВЕР')).toEqual(sorted(d.aDb, d.aWeb));
    expect(vs(A, 'workst')).toEqual([d.aWs]);
  });

  it('non-strict: short values (1–2 characters) still match and fold Cyrillic', () => {
    expect(vs(I, 'IP')).toEqual([d.iLogin]);
    expect(vs(I, 'вх')).toEqual([d.iLogin]);
    expect(vs(F, 'ё')).toEqual([d.fYolka]);
  });

  it('non-strict: ignores fields declared not searchable', () => {
    // every asset has coordinates "--- []", which is not searchable
    expect(vs(A, '--- [')).toEqual([]);
    expect(vs(A, '[]')).toEqual([]);
  });

  it('non-strict: an empty value matches everything', () => {
    expect(vs(I, '')).toHaveLength(4);
  });

  it('strict: the exact value of some string field', () => {
    expect(vs(I, 'Вход с нового IP', true)).toEqual([d.iLogin]);
    expect(vs(I, 'automatic', true)).toEqual([d.iBrute]);
  });

  it('strict: a substring or a different case does not match', () => {
    expect(vs(I, 'Вход с нового', true)).toEqual([]);
    expect(vs(I, 'вход с нового ip', true)).toEqual([]);
  });

  it('strict: short exact values match', () => {
    expect(vs(RG, 'ИБ', true)).toEqual([d.rgIb]);
    expect(vs(RG, 'И', true)).toEqual([]);
  });

  it('counts the matches in total', () => {
    expect(search(A, { virtual_search: { value: 'сервер', strict: false }, limit: 1 }).total).toBe(2);
  });
});

describe('extension_params (tree widening)', () => {
  const names = (req: Partial<SearchRequest>) =>
    search(SG, req)
      .items.map((x) => x.name as string)
      .sort();
  const root = (): SearchFilter => ({ field: 'id', filter_type: 'equal', value: d.sgRoot });
  const chromium = (): SearchFilter => ({ field: 'id', filter_type: 'equal', value: d.sgChromium });

  it('without widening answers just the matched groups', () => {
    expect(names({ filters: [root()] })).toEqual(['Системное ПО']);
  });

  it('chidlrens_all (the spec spelling) adds all descendants', () => {
    expect(names({ filters: [root()], extension_params: { chidlrens_all: true, parents_all: false } })).toEqual(['Chromium-based', 'Браузеры', 'Системное ПО']);
  });

  it('children_all (the filter-level spelling) does the same', () => {
    expect(names({ filters: [root()], extension_params: { children_all: true, parents_all: false } })).toEqual(['Chromium-based', 'Браузеры', 'Системное ПО']);
  });

  it('parents_all adds the chain of ancestors', () => {
    expect(names({ filters: [chromium()], extension_params: { chidlrens_all: false, parents_all: true } })).toEqual(['Chromium-based', 'Браузеры', 'Системное ПО']);
  });

  it('both together add ancestors and descendants of the matched group', () => {
    const mid: SearchFilter = { field: 'id', filter_type: 'equal', value: d.sgBrowsers };
    expect(names({ filters: [mid], extension_params: { chidlrens_all: true, parents_all: true } })).toEqual(['Chromium-based', 'Браузеры', 'Системное ПО']);
  });

  it('never pulls in unrelated trees, and total counts the widened set', () => {
    const r = search(SG, { filters: [root()], extension_params: { chidlrens_all: true, parents_all: false }, limit: 1 });
    expect(r.total).toBe(3);
    expect(r.items).toHaveLength(1);
    expect(names({ filters: [root()], extension_params: { chidlrens_all: true, parents_all: true } })).not.toContain('Офис');
  });

  it('widens on the responsible_groups tree (parent_group)', () => {
    const r = search(RG, { filters: [{ field: 'id', filter_type: 'equal', value: d.rgSoc }], extension_params: { chidlrens_all: true, parents_all: false } });
    expect(r.items.map((x) => x.id).sort()).toEqual(sorted(d.rgSoc, d.rgChild));
  });

  it('combines a filter-level tree expansion with request-level widening', () => {
    // groups whose parent is the root or one of its descendants: Браузеры, Chromium-based;
    // then widened to their ancestors: + Системное ПО
    const f: SearchFilter = { field: 'parent', filter_type: 'related', value: [d.sgRoot], extension_params: { children_all: true, parents_all: false } };
    expect(names({ filters: [f] })).toEqual(['Chromium-based', 'Браузеры']);
    expect(names({ filters: [f], extension_params: { chidlrens_all: false, parents_all: true } })).toEqual(['Chromium-based', 'Браузеры', 'Системное ПО']);
    const r = search(SG, { filters: [f], extension_params: { chidlrens_all: true, parents_all: true }, limit: 2 });
    expect(r.total).toBe(3);
  });

  it('widening applies after virtual_search', () => {
    expect(names({ virtual_search: { value: 'chromium', strict: false }, extension_params: { chidlrens_all: false, parents_all: true } })).toEqual([
      'Chromium-based',
      'Браузеры',
      'Системное ПО',
    ]);
  });

  it('is ignored on a resource that is not a tree', () => {
    const r = search(I, { filters: [{ field: 'id', filter_type: 'equal', value: d.iBrute }], extension_params: { chidlrens_all: true, parents_all: true } });
    expect(r.items.map((x) => x.id)).toEqual([d.iBrute]);
  });
});

describe('include_fields / exclude_fields', () => {
  it('include_fields answers only the named fields', () => {
    const r = search(I, { include_fields: ['title', 'status'] });
    expect(r.items).toHaveLength(4);
    for (const it of r.items) expect(Object.keys(it).sort()).toEqual(['status', 'title']);
  });

  it('exclude_fields drops the named fields and keeps the others', () => {
    const it = search(I, { exclude_fields: ['description', 'risk'] }).items[0]!;
    expect(it).not.toHaveProperty('description');
    expect(it).not.toHaveProperty('risk');
    expect(it).toHaveProperty('title');
    expect(it).toHaveProperty('id');
  });

  it('include and exclude together', () => {
    const it = search(I, { include_fields: ['id', 'title', 'status'], exclude_fields: ['status'] }).items[0]!;
    expect(Object.keys(it).sort()).toEqual(['id', 'title']);
  });

  it('include_fields may name computed fields', () => {
    const it = search(A, { include_fields: ['name', 'all_open_count'], filters: [{ field: 'id', filter_type: 'equal', value: d.aDb }] }).items[0]!;
    expect(it).toEqual({ name: 'Сервер БД', all_open_count: 1 });
  });

  it('rejects an unknown include or exclude field, naming it', () => {
    const e = apiError(() => search(I, { include_fields: ['title', 'bogus_field'] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('bogus_field');
    const e2 = apiError(() => search(I, { exclude_fields: ['other_bogus'] }));
    expect(e2.status).toBe(400);
    expect(e2.message).toContain('other_bogus');
  });
});

describe('relations and _relations', () => {
  it('loads a belongsTo relation as an object, or null when the link is empty', () => {
    const r = search(I, { relations: ['service_asset'] });
    const byId = new Map(r.items.map((x) => [x.id, x]));
    expect((byId.get(d.iBrute)!.service_asset as Rec).name).toBe('Сервер БД');
    expect((byId.get(d.iTrojan)!.service_asset as Rec).id).toBe(d.aWeb);
    expect(byId.get(d.iScan)!.service_asset).toBeNull();
  });

  it('loads hasMany and manyToMany relations as arrays ([] when none)', () => {
    const r = search(I, { relations: ['occurrences', 'engine_go_rules'] });
    const byId = new Map(r.items.map((x) => [x.id, x]));
    const brute = byId.get(d.iBrute)!;
    expect((brute.occurrences as Rec[]).map((o) => o.id)).toEqual([d.occ1, d.occ2]);
    expect((brute.engine_go_rules as Rec[]).map((o) => o.name)).toEqual(['Обнаружение брутфорса']);
    expect(byId.get(d.iTrojan)!.occurrences).toEqual([]);
    expect(byId.get(d.iTrojan)!.engine_go_rules).toEqual([]);
  });

  it('does not load relations that are not asked for', () => {
    const it = search(I).items[0]!;
    expect(it).not.toHaveProperty('service_asset');
    expect(it).not.toHaveProperty('occurrences');
    expect(it).not.toHaveProperty('_relations');
  });

  it('loads a belongsTo relation even when its fk is not among include_fields, without answering the fk', () => {
    const it = search(I, { include_fields: ['title'], relations: ['service_asset'], filters: [{ field: 'id', filter_type: 'equal', value: d.iBrute }] }).items[0]!;
    expect(Object.keys(it).sort()).toEqual(['service_asset', 'title']);
    expect((it.service_asset as Rec).id).toBe(d.aDb);
  });

  it('request _relations answers id lists of hasMany and manyToMany links', () => {
    const r = search(I, { _relations: ['occurrences', 'engine_go_rules'] });
    const byId = new Map(r.items.map((x) => [x.id, x]));
    expect(byId.get(d.iBrute)!._relations).toEqual({ occurrences: [d.occ1, d.occ2], engine_go_rules: [d.rule] });
    expect(byId.get(d.iLogin)!._relations).toEqual({ occurrences: [], engine_go_rules: [] });
    expect(byId.get(d.iBrute)).not.toHaveProperty('occurrences');
  });

  it('_relations works with include_fields that leave out id', () => {
    const it = search(A, { include_fields: ['name'], _relations: ['software'], filters: [{ field: 'name', filter_type: 'equal', value: 'Сервер БД' }] }).items[0]!;
    expect(it.name).toBe('Сервер БД');
    expect(((it._relations as Record<string, string[]>).software ?? []).sort()).toEqual(sorted(d.swChrome, d.swLibre));
  });

  it('rejects a belongsTo name in _relations with 400', () => {
    const e = apiError(() => search(I, { _relations: ['service_asset'] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('service_asset');
  });

  it('rejects an unknown relation in relations and in _relations', () => {
    const e = apiError(() => search(I, { relations: ['comments'] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('comments');
    const e2 = apiError(() => search(I, { _relations: ['documents'] }));
    expect(e2.status).toBe(400);
    expect(e2.message).toContain('documents');
  });
});

describe('limit, offset and total', () => {
  it('total counts all matches, not the page', () => {
    const r = search(I, { limit: 2 });
    expect(r.items).toHaveLength(2);
    expect(r.total).toBe(4);
  });

  it('a short last page still reports the full total', () => {
    const r = search(I, { limit: 3, offset: 3 });
    expect(r.items.map((x) => x.id)).toEqual([d.iScan]);
    expect(r.total).toBe(4);
  });

  it('a short first page reports the number found', () => {
    const r = search(I, { limit: 10, filters: [{ field: 'status', filter_type: 'equal', value: 'new' }] });
    expect(r.items).toHaveLength(2);
    expect(r.total).toBe(2);
  });

  it('an offset beyond the end answers no items and the full total', () => {
    const r = search(I, { limit: 10, offset: 50 });
    expect(r.items).toEqual([]);
    expect(r.total).toBe(4);
  });

  it('an offset beyond the end with filters counts the filtered matches', () => {
    const r = search(I, { limit: 1, offset: 5, filters: [{ field: 'status', filter_type: 'equal', value: 'new' }] });
    expect(r.items).toEqual([]);
    expect(r.total).toBe(2);
  });

  it('limit 0 answers only the total', () => {
    const r = search(I, { limit: 0 });
    expect(r.items).toEqual([]);
    expect(r.total).toBe(4);
    expect(search(I, { limit: 0, offset: 2 }).total).toBe(4);
  });

  it('no match at all answers total 0', () => {
    const r = search(I, { filters: [{ field: 'title', filter_type: 'equal', value: 'нет такого' }] });
    expect(r).toEqual({ items: [], total: 0 });
  });

  it('pages partition the ordered result', () => {
    const ordering = [{ field: 'risklevel', direction: 'asc' as const }];
    const all = search(I, { ordering }).items.map((x) => x.id);
    const p1 = search(I, { ordering, limit: 2, offset: 0 });
    const p2 = search(I, { ordering, limit: 2, offset: 2 });
    expect([...p1.items, ...p2.items].map((x) => x.id)).toEqual(all);
    expect(p1.total).toBe(4);
    expect(p2.total).toBe(4);
  });
});

describe('400 errors naming the field', () => {
  const err = (r: typeof I, filter: SearchFilter) => apiError(() => search(r, { filters: [filter] }));

  it('unknown filter field', () => {
    const e = err(I, { field: 'severity', filter_type: 'equal', value: 1 });
    expect(e.status).toBe(400);
    expect(e.message).toContain('severity');
  });

  it("equal 'abc' on an int field", () => {
    const e = err(A, { field: 'value', filter_type: 'equal', value: 'abc' });
    expect(e.status).toBe(400);
    expect(e.message).toContain('value');
  });

  it('a fractional number on an int field', () => {
    const e = err(A, { field: 'network_exposure', filter_type: 'equal', value: 1.5 });
    expect(e.status).toBe(400);
    expect(e.message).toContain('network_exposure');
  });

  it('a non-uuid on a uuid field (equal and intersection)', () => {
    const e = err(I, { field: 'finding_id', filter_type: 'equal', value: '123' });
    expect(e.status).toBe(400);
    expect(e.message).toContain('finding_id');
    const e2 = err(I, { field: 'service_asset_id', filter_type: 'intersection', value: [d.aDb, 'x'] });
    expect(e2.status).toBe(400);
    expect(e2.message).toContain('service_asset_id');
  });

  it('a garbage timestamp', () => {
    const e = err(I, { field: 'created_at', filter_type: 'range', value: ['вчера', null] });
    expect(e.status).toBe(400);
    expect(e.message).toContain('created_at');
  });

  it('substr on an int field', () => {
    const e = err(A, { field: 'value', filter_type: 'substr', value: '1' });
    expect(e.status).toBe(400);
    expect(e.message).toContain('value');
  });

  it('substr with a non-string value', () => {
    const e = err(I, { field: 'title', filter_type: 'substr', value: 5 });
    expect(e.status).toBe(400);
    expect(e.message).toContain('title');
  });

  it('range with the wrong arity or no bound', () => {
    for (const value of [[1], [1, 2, 3], 5, [null, null]]) {
      const e = err(I, { field: 'risklevel', filter_type: 'range', value });
      expect(e.status, JSON.stringify(value)).toBe(400);
      expect(e.message).toContain('risklevel');
    }
  });

  it('range on a string field', () => {
    const e = err(I, { field: 'title', filter_type: 'range', value: ['a', 'b'] });
    expect(e.status).toBe(400);
    expect(e.message).toContain('title');
  });

  it('intersection with a non-array', () => {
    const e = err(I, { field: 'status', filter_type: 'intersection', value: 'new' });
    expect(e.status).toBe(400);
    expect(e.message).toContain('status');
  });

  it('equal with an array, an object or no value', () => {
    for (const value of [['new'], { a: 1 }, undefined, null]) {
      const e = err(I, { field: 'status', filter_type: 'equal', value });
      expect(e.status, JSON.stringify(value)).toBe(400);
      expect(e.message).toContain('status');
    }
  });

  it('equal on a JSON field', () => {
    const e = err(F, { field: 'cpes', filter_type: 'equal', value: 'x' });
    expect(e.status).toBe(400);
    expect(e.message).toContain('cpes');
  });

  it('a bool filter with a non-boolean', () => {
    const e = err(I, { field: 'external', filter_type: 'equal', value: 'да' });
    expect(e.status).toBe(400);
    expect(e.message).toContain('external');
  });
});

describe('SQL injection safety', () => {
  const EVIL = [`'; DROP TABLE service_assets; --`, `" OR 1=1 --`, `Robert'); DELETE FROM service_assets; --`, `x" ; DROP TABLE "findings`];

  function tableCount(name: string): number {
    return (d.db.prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) as { n: number }).n;
  }

  it('keeps every value out of the SQL text, runs, and leaves the tables intact', () => {
    for (const evil of EVIL) {
      const filters: SearchFilter[] = [
        { field: 'name', filter_type: 'equal', value: evil },
        { field: 'location', filter_type: 'substr', value: evil },
        { field: 'description', filter_type: 'substr', value: evil.slice(0, 2) },
        { field: 'type', filter_type: 'intersection', value: [evil, 'Host'] },
        { field: 'name', filter_type: 'substr', value: evil, negation: true },
      ];
      for (const strict of [false, true]) {
        const req: SearchRequest = { ...emptySearch(), filters, virtual_search: { value: evil, strict } };
        const c = compileSearch(A, req);
        expect(c.page.sql).not.toContain(evil);
        expect(c.count.sql).not.toContain(evil);
        expect(c.page.sql).not.toContain('DROP');
        expect(c.page.sql).not.toContain('1=1');
        const w = whereSql(A, filters, { value: evil, strict });
        expect(w.sql).not.toContain(evil);
        expect(w.params.some((p) => typeof p === 'string' && p.includes(evil.slice(3)))).toBe(true);
        expect(() => new Runner(d.store).search(A, req)).not.toThrow();
        expect(new Runner(d.store).search(A, req).items).toEqual([]);
      }
      const f = filterSql(A, { field: 'name', filter_type: 'equal', value: evil });
      expect(f.sql).not.toContain(evil);
      expect(f.params).toEqual([evil]);
    }
    expect(tableCount('service_assets')).toBe(1);
    expect(tableCount('findings')).toBe(1);
    expect(search(A).total).toBe(3);
  });

  it('finds a record whose text really contains the hostile string', () => {
    const evil = EVIL[0]!;
    const rec = d.store.create(A, { name: evil, type: 'Host' });
    try {
      expect(ids(A, { field: 'name', filter_type: 'equal', value: evil })).toEqual([rec.id]);
      expect(ids(A, { field: 'name', filter_type: 'substr', value: 'DROP TABLE' })).toEqual([rec.id]);
      expect(search(A, { virtual_search: { value: evil, strict: true } }).items.map((x) => x.id)).toEqual([rec.id]);
    } finally {
      d.store.delete(A, rec.id as string);
    }
    expect(tableCount('service_assets')).toBe(1);
  });

  it('rejects hostile field names instead of putting them into SQL', () => {
    const evilField = `name" = name; DROP TABLE service_assets; --`;
    for (const req of [
      { filters: [{ field: evilField, filter_type: 'equal' as const, value: 'x' }] },
      { ordering: [{ field: evilField, direction: 'asc' as const }] },
      { include_fields: [evilField] },
      { exclude_fields: [evilField] },
      { relations: [evilField] },
      { filters: [{ field: evilField, filter_type: 'related' as const, value: [] }] },
    ]) {
      const e = apiError(() => search(A, req));
      expect(e.status).toBe(400);
    }
    expect(tableCount('service_assets')).toBe(1);
  });

  it('binds hostile values in related and timestamp filters as parameters', () => {
    const e = apiError(() => search(I, { filters: [{ field: 'service_asset', filter_type: 'related', value: [EVIL[0]] }] }));
    expect(e.status).toBe(400);
    const e2 = apiError(() => search(I, { filters: [{ field: 'created_at', filter_type: 'equal', value: EVIL[0] }] }));
    expect(e2.status).toBe(400);
    expect(tableCount('service_assets')).toBe(1);
  });
});
