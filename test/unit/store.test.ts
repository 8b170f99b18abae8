// The generic store: create / update / _relations / delete / bulk operations / group / meta,
// and the incident status side effects (spec: Resources, Link management, Errors;
// contract.md §2–§3). Each test gets a fresh in-memory database.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, ERR, MASS } from '../../src-shared/errors';
import { fieldsOf, getResource, relationsOf, type ResourceDef } from '../../src-shared/resources/index';
import { emptySearch } from '../../src-shared/schemas/search';
import { openDatabase, type Db } from '../../src-main/store/db';
import { Store, type Rec } from '../../src-main/store/store';
import { Runner } from '../../src-main/store/query/runner';
import { compileSearchPlan } from '../../src-main/store/query/plan';

const A = getResource('service_assets');
const F = getResource('findings');
const I = getResource('service_asset_findings');
const SC = getResource('service_asset_finding_status_changes');
const O = getResource('occurrences');
const M = getResource('messages');
const N = getResource('network_interfaces');
const SG = getResource('software_groups');
const SW = getResource('software');
const R = getResource('engine_go_rules');
const RULES = getResource('rules');
const RS = getResource('rule_sets');
const RG = getResource('responsible_groups');
const CF = getResource('custom_fields');
const CFV = getResource('custom_field_values');
const VS = getResource('value_stores');
const AG = getResource('agents');
const IS = getResource('input_sources');

const USER = '7d444840-9dc0-11d1-b245-5ffdce74fad2';
const MISSING = '00000000-0000-4000-8000-00000000dead';

let db: Db;
let store: Store;

beforeEach(() => {
  db = openDatabase(':memory:').db;
  store = new Store(db);
});
afterEach(() => db.close());

/** Runs fn and answers the ApiError it throws (fails when it throws nothing or something else). */
function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

const id = (rec: Rec) => rec.id as string;
const count = (r: ResourceDef) => new Runner(store).search(r, emptySearch(0)).total;
const tableCount = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
const relIds = (r: ResourceDef, recId: string, rel: string) => ((store.get(r, recId, [])._relations as Record<string, string[]>)[rel] ?? []).slice().sort();
const sorted = (...xs: string[]) => [...xs].sort();

function asset(patch: Rec = {}) {
  return store.create(A, { name: 'Сервер БД', type: 'Host', location: 'Москва', ...patch });
}
function finding(patch: Rec = {}) {
  return store.create(F, { title: 'Подозрительный вход', ...patch });
}
function incident(patch: Rec = {}) {
  return store.create(I, { title: 'Подбор пароля SSH', ...patch });
}
function statusChanges(incidentId: string): Rec[] {
  return new Runner(store).search(SC, { ...emptySearch(100), filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: incidentId }] }).items;
}

describe('create', () => {
  it('answers the stored record with id, created_at = updated_at in the platform format', () => {
    const a = asset();
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(a.updated_at).toBe(a.created_at);
    expect(store.get(A, id(a), [])).toMatchObject({ name: 'Сервер БД', location: 'Москва' });
  });

  it('keeps a client-given id', () => {
    const given = 'b3a1c1f0-1234-4abc-8def-0123456789ab';
    expect(asset({ id: given }).id).toBe(given);
  });

  it('fills bool defaults (true and false) and string defaults', () => {
    const a = asset({ type: undefined });
    expect(a.active).toBe(true);
    expect(a.coordinates).toBe('--- []');
    expect(a.type).toBe('Host');
    const f = finding();
    expect(f.local).toBe(true);
    expect(f.new_version).toBe(false);
    expect(f.is_system).toBe(false);
  });

  it('fills JSON defaults, each record with its own copy', () => {
    const f1 = finding();
    expect(f1.cpes).toEqual([]);
    expect(f1.identifier).toEqual({});
    store.update(F, { id: id(f1), cpes: ['cpe:/a:nginx:nginx:1.25'] });
    expect(finding().cpes).toEqual([]);
    expect(store.create(RG, { name: 'SOC' }).user_ids).toEqual([]);
  });

  it('leaves fields without a default null', () => {
    const a = asset();
    expect(a.description).toBeNull();
    expect(a.value).toBeNull();
    expect(a.responsible_group_id).toBeNull();
  });

  it('keeps given values over defaults', () => {
    const a = asset({ active: false, coordinates: '--- [55.75, 37.61]' });
    expect(a.active).toBe(false);
    expect(a.coordinates).toBe('--- [55.75, 37.61]');
  });

  it('assigns display_id as a sequence 1, 2, 3 … and continues after a given one', () => {
    expect([finding(), finding(), finding()].map((f) => f.display_id)).toEqual([1, 2, 3]);
    expect(finding({ display_id: 10 }).display_id).toBe(10);
    expect(finding().display_id).toBe(11);
    // each resource has its own sequence
    expect(incident().display_id).toBe(1);
    expect(incident().display_id).toBe(2);
  });

  it('drops read-only fields and fills their defaults', () => {
    const ag = store.create(AG, { name: 'agent-01', config_version: 99, applied_at: '2024-01-01T00:00:00Z' });
    expect(ag.config_version).toBe(0);
    expect(ag.applied_at).toBeNull();
  });

  it('ignores created_at / updated_at, computed fields and relation keys in the body', () => {
    const a = asset({ created_at: '1999-01-01T00:00:00.000000Z', risklevel: 10, is_local: false, network_interfaces: [{ ip: '1.1.1.1' }] });
    expect(a.created_at).not.toBe('1999-01-01T00:00:00.000000Z');
    expect(a.risklevel).toBe(0);
    expect(a.is_local).toBe(true);
    expect(count(N)).toBe(0);
  });

  it('rejects an unknown field with 400 naming it', () => {
    const e = apiError(() => asset({ colour: 'red' }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('colour');
    expect(count(A)).toBe(0);
  });

  it('rejects a missing required field with 400', () => {
    const e = apiError(() => store.create(SG, { description: 'без имени' }));
    expect(e.status).toBe(400);
    expect(e.message).toBe('name is required');
  });

  it('masks secret fields in answers but stores them', () => {
    const v = store.create(VS, { name: 'Внешняя БД', user: 'radar', password: 'p@ssw0rd' });
    expect(v.password).toBe('********');
    expect(store.get(VS, id(v), []).password).toBe('********');
    expect(new Runner(store).search(VS, emptySearch()).items[0]!.password).toBe('********');
    expect((db.prepare(`SELECT password FROM value_stores`).get() as { password: string }).password).toBe('p@ssw0rd');
    expect(store.create(VS, { name: 'Без пароля' }).password).toBeNull();
  });

  it('refuses filtering on a secret field, except exists', () => {
    store.create(VS, { name: 'Внешняя БД', password: 'p@ssw0rd' });
    const e = apiError(() => new Runner(store).search(VS, { ...emptySearch(), filters: [{ field: 'password', filter_type: 'equal', value: 'p@ssw0rd' }] }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('password');
    expect(new Runner(store).search(VS, { ...emptySearch(), filters: [{ field: 'password', filter_type: 'exists', negation: true }] }).total).toBe(1);
  });

  it('refuses an invalid tsquery in a compliance rule with 400 invalid query', () => {
    const e = apiError(() => store.create(RULES, { name: 'Запрещённое ПО', query: 'teamviewer &' }));
    expect(e.status).toBe(400);
    expect(e.message).toBe(ERR.invalidQuery);
    expect(store.create(RULES, { name: 'Запрещённое ПО', query: 'teamviewer | anydesk' }).query).toBe('teamviewer | anydesk');
  });
});

describe('risk derived from risklevel (CVSS bands)', () => {
  const cases: [number, string][] = [
    [0, 'none'],
    [0.1, 'low'],
    [3.9, 'low'],
    [4, 'medium'],
    [6.9, 'medium'],
    [7, 'high'],
    [8.9, 'high'],
    [9, 'critical'],
    [10, 'critical'],
  ];

  it.each(cases)('on create: risklevel %s → %s', (level, band) => {
    expect(incident({ risklevel: level }).risk).toBe(band);
  });

  it('on create without risklevel: 0 and none', () => {
    const i = incident();
    expect(i.risklevel).toBe(0);
    expect(i.risk).toBe('none');
  });

  it.each(cases)('on update: risklevel %s → %s', (level, band) => {
    const i = incident({ risklevel: 5 });
    expect(store.update(I, { id: id(i), risklevel: level }).risk).toBe(band);
  });

  it('walks up and down the bands on successive updates', () => {
    const i = incident({ risklevel: 2 });
    expect(i.risk).toBe('low');
    expect(store.update(I, { id: id(i), risklevel: 9.8 }).risk).toBe('critical');
    expect(store.update(I, { id: id(i), risklevel: 0 }).risk).toBe('none');
  });

  it('leaves risk alone when risklevel is not changed', () => {
    const i = incident({ risklevel: 7.5 });
    const u = store.update(I, { id: id(i), title: 'Новый заголовок' });
    expect(u.risk).toBe('high');
    expect(u.risklevel).toBe(7.5);
  });
});

describe('update', () => {
  it('is partial: fields not sent keep their values', () => {
    const a = asset({ description: 'СУБД PostgreSQL', value: 1, network_exposure: 2 });
    const u = store.update(A, { id: id(a), location: 'Казань' });
    expect(u).toMatchObject({ name: 'Сервер БД', description: 'СУБД PostgreSQL', value: 1, network_exposure: 2, location: 'Казань', type: 'Host', active: true });
  });

  it('sets a field to null when null is sent', () => {
    const a = asset({ description: 'x' });
    expect(store.update(A, { id: id(a), description: null }).description).toBeNull();
  });

  it('bumps updated_at and keeps created_at', () => {
    const a = asset();
    const u = store.update(A, { id: id(a), location: 'Казань' });
    expect(u.created_at).toBe(a.created_at);
    expect((u.updated_at as string) > (a.updated_at as string)).toBe(true);
  });

  it('bumps updated_at even when only _relations change', () => {
    const a = asset();
    const sw = store.create(SW, { name: '7-Zip' });
    const u = store.update(A, { id: id(a), _relations: { software: [id(sw)] } });
    expect((u.updated_at as string) > (a.updated_at as string)).toBe(true);
  });

  it('answers 404 not found for an unknown id and changes nothing', () => {
    asset();
    const e = apiError(() => store.update(A, { id: MISSING, name: 'x' }));
    expect(e.status).toBe(404);
    expect(e.message).toBe(ERR.notFound);
    expect(new Runner(store).search(A, emptySearch()).items.map((x) => x.name)).toEqual(['Сервер БД']);
  });

  it('replaces JSON values as a whole', () => {
    const f = finding({ cpes: ['a', 'b'] });
    expect(store.update(F, { id: id(f), cpes: ['c'] }).cpes).toEqual(['c']);
  });

  it('ignores read-only fields', () => {
    const ag = store.create(AG, { name: 'agent-01' });
    expect(store.update(AG, { id: id(ag), config_version: 7, name: 'agent-02' })).toMatchObject({ config_version: 0, name: 'agent-02' });
  });

  it('stores the read-only fields the server sets with a write (serverSet), not those of the body', () => {
    const ag = store.create(AG, { name: 'agent-01' });
    const u = store.update(AG, { id: id(ag), config_version: 7, name: 'agent-02' }, { serverSet: { config_version: 3 } });
    expect(u).toMatchObject({ config_version: 3, name: 'agent-02' });
    expect(() => store.update(AG, { id: id(ag) }, { serverSet: { no_such_field: 1 } })).toThrow(/no field no_such_field/);
  });

  it('keeps updated_at when asked to (touch: false)', () => {
    const a = asset();
    const u = store.update(A, { id: id(a), location: 'Казань' }, { touch: false });
    expect(u).toMatchObject({ location: 'Казань', updated_at: a.updated_at });
  });
});

describe('updateSet', () => {
  it('sets the same values on every listed record in one write, running the declaration hooks', () => {
    const r1 = store.create(R, { name: 'r1', frontend_data: {}, settings: {} });
    const r2 = store.create(R, { name: 'r2', frontend_data: {}, settings: {} });
    const r3 = store.create(R, { name: 'r3', frontend_data: {}, settings: {} });
    expect([r1, r2, r3].map((r) => r.reload)).toEqual([true, true, true]);
    expect(store.updateSet(R, [id(r1), id(r2).toUpperCase(), MISSING], { reload: false }, { touch: false })).toBe(2);
    expect([r1, r2, r3].map((r) => store.find(R, id(r))!.reload)).toEqual([false, false, true]);
    expect(store.find(R, id(r1))!.updated_at).toBe(r1.updated_at);
    // Without reload in the values, the rules' hook sets it (a rule changed must be reloaded).
    store.updateSet(R, [id(r1)], { name: 'r1 bis' });
    expect(store.find(R, id(r1))).toMatchObject({ name: 'r1 bis', reload: true });
    expect((store.find(R, id(r1))!.updated_at as string) > (r1.updated_at as string)).toBe(true);
  });

  it('checks references and answers constraint errors in the spec shape', () => {
    const i = incident();
    expect(apiError(() => store.updateSet(I, [id(i)], { finding_id: MISSING })).message).toBe('incorrect relation identifiers for finding_id');
    store.create(SG, { name: 'g1' });
    const g2 = store.create(SG, { name: 'g2' });
    const e = apiError(() => store.updateSet(SG, [id(g2)], { name: 'g1' }));
    expect([e.status, e.message]).toEqual([409, 'name_already_used']);
    expect(store.find(SG, id(g2))!.name).toBe('g2');
  });
});

describe('unique fields', () => {
  it('create with a taken name answers 409 name_already_used with extra.fields', () => {
    store.create(SG, { name: 'Браузеры' });
    const e = apiError(() => store.create(SG, { name: 'Браузеры' }));
    expect(e.status).toBe(409);
    expect(e.message).toBe('name_already_used');
    expect(e.extra).toEqual({ fields: ['name'] });
    expect(e.toBody()).toEqual({ error: 'name_already_used', error_code: 409, extra: { fields: ['name'] } });
    expect(count(SG)).toBe(1);
  });

  it('update to a taken name answers 409 and keeps the old name', () => {
    store.create(RULES, { name: 'Запрещённое ПО', query: 'teamviewer' });
    const r2 = store.create(RULES, { name: 'Обязательное ПО', query: 'kaspersky' });
    const e = apiError(() => store.update(RULES, { id: id(r2), name: 'Запрещённое ПО' }));
    expect(e.status).toBe(409);
    expect(e.message).toBe('name_already_used');
    expect(e.extra?.fields).toEqual(['name']);
    expect(store.get(RULES, id(r2), []).name).toBe('Обязательное ПО');
  });

  it('names the conflicting field for other unique fields', () => {
    store.create(SW, { name: 'nginx', raw_output_line: 'nginx 1.24.0-2ubuntu7' });
    const e = apiError(() => store.create(SW, { name: 'nginx', raw_output_line: 'nginx 1.24.0-2ubuntu7' }));
    expect(e.status).toBe(409);
    expect(e.message).toBe('raw_output_line_already_used');
    expect(e.extra?.fields).toEqual(['raw_output_line']);
    store.create(CF, { field_key: 'sla', title: 'SLA', field_type: 'integer' });
    const e2 = apiError(() => store.create(CF, { field_key: 'sla', title: 'SLA 2', field_type: 'integer' }));
    expect(e2.message).toBe('field_key_already_used');
    expect(e2.extra?.fields).toEqual(['field_key']);
    finding({ display_id: 5 });
    const e3 = apiError(() => finding({ display_id: 5 }));
    expect(e3.message).toBe('display_id_already_used');
  });

  it('a reused id answers 409', () => {
    const a = asset();
    const e = apiError(() => asset({ id: a.id }));
    expect(e.status).toBe(409);
    expect(e.extra?.fields).toEqual(['id']);
  });

  it('treats null as not taken (several records without the unique value)', () => {
    store.create(SW, { name: 'a' });
    store.create(SW, { name: 'b' });
    expect(count(SW)).toBe(2);
  });
});

describe('references', () => {
  it('an unknown ref id answers 400 incorrect relation identifiers for <field>', () => {
    const e = apiError(() => incident({ service_asset_id: MISSING }));
    expect(e.status).toBe(400);
    expect(e.message).toBe('incorrect relation identifiers for service_asset_id');
    expect(count(I)).toBe(0);
  });

  it('checks references on update too, changing nothing', () => {
    const g = store.create(SG, { name: 'Браузеры' });
    const e = apiError(() => store.update(SG, { id: id(g), parent_id: MISSING, description: 'x' }));
    expect(e.status).toBe(400);
    expect(e.message).toBe('incorrect relation identifiers for parent_id');
    expect(store.get(SG, id(g), [])).toMatchObject({ parent_id: null, description: null });
  });

  it('accepts an existing ref and null', () => {
    const a = asset();
    const i = incident({ service_asset_id: id(a) });
    expect(i.service_asset_id).toBe(a.id);
    expect(store.update(I, { id: id(i), service_asset_id: null }).service_asset_id).toBeNull();
  });
});

describe('_relations (link management)', () => {
  let a: Rec;
  let s1: string;
  let s2: string;
  let s3: string;
  beforeEach(() => {
    s1 = id(store.create(SW, { name: 'Google Chrome' }));
    s2 = id(store.create(SW, { name: 'Firefox' }));
    s3 = id(store.create(SW, { name: 'LibreOffice' }));
    a = asset({ _relations: { software: [s1, s2] } });
  });

  it('create with _relations makes the links', () => {
    expect(relIds(A, id(a), 'software')).toEqual(sorted(s1, s2));
    expect(relIds(SW, s1, 'service_assets')).toEqual([id(a)]);
  });

  it('rule 1: absent _relations leaves links unchanged', () => {
    store.update(A, { id: id(a), name: 'Сервер БД-2' });
    expect(relIds(A, id(a), 'software')).toEqual(sorted(s1, s2));
  });

  it('rule 1: a key absent from _relations leaves that kind unchanged', () => {
    const gid = id(store.create(getResource('service_asset_groups'), { name: 'DMZ' }));
    store.update(A, { id: id(a), _relations: { service_asset_groups: [gid] } });
    expect(relIds(A, id(a), 'software')).toEqual(sorted(s1, s2));
    expect(relIds(A, id(a), 'service_asset_groups')).toEqual([gid]);
  });

  it('rule 2: a non-empty list makes many-to-many links equal to it', () => {
    store.update(A, { id: id(a), _relations: { software: [s2, s3] } });
    expect(relIds(A, id(a), 'software')).toEqual(sorted(s2, s3));
    expect(relIds(SW, s1, 'service_assets')).toEqual([]);
  });

  it('rule 2: duplicates in the list are harmless', () => {
    store.update(A, { id: id(a), _relations: { software: [s3, s3] } });
    expect(relIds(A, id(a), 'software')).toEqual([s3]);
  });

  it('rule 2: a non-empty list makes has-many links equal to it (detaching the others)', () => {
    const n1 = id(store.create(N, { ip: '10.0.0.1', service_asset_id: id(a) }));
    const n2 = id(store.create(N, { ip: '10.0.0.2', service_asset_id: id(a) }));
    const n3 = id(store.create(N, { ip: '10.0.0.3' }));
    store.update(A, { id: id(a), _relations: { network_interfaces: [n2, n3] } });
    expect(relIds(A, id(a), 'network_interfaces')).toEqual(sorted(n2, n3));
    expect(store.get(N, n1, []).service_asset_id).toBeNull();
    expect(store.get(N, n3, []).service_asset_id).toBe(a.id);
  });

  it('rule 2: has-many links move records away from their previous owner', () => {
    const other = asset({ name: 'Web-сервер' });
    const n1 = id(store.create(N, { ip: '10.0.0.1', service_asset_id: id(other) }));
    store.update(A, { id: id(a), _relations: { network_interfaces: [n1] } });
    expect(relIds(A, id(a), 'network_interfaces')).toEqual([n1]);
    expect(relIds(A, id(other), 'network_interfaces')).toEqual([]);
  });

  it('rule 3: [] removes all links of that kind (many-to-many and has-many)', () => {
    const n1 = id(store.create(N, { ip: '10.0.0.1', service_asset_id: id(a) }));
    store.update(A, { id: id(a), _relations: { software: [], network_interfaces: [] } });
    expect(relIds(A, id(a), 'software')).toEqual([]);
    expect(relIds(A, id(a), 'network_interfaces')).toEqual([]);
    // the software and the interface themselves survive
    expect(count(SW)).toBe(3);
    expect(store.get(N, n1, []).service_asset_id).toBeNull();
  });

  it('rule 4 (errors): an unknown id answers 400 and changes nothing, not even the other fields', () => {
    const e = apiError(() => store.update(A, { id: id(a), name: 'Новое имя', _relations: { software: [s3, MISSING] } }));
    expect(e.status).toBe(400);
    expect(e.message).toBe('incorrect relation identifiers for software');
    expect(relIds(A, id(a), 'software')).toEqual(sorted(s1, s2));
    expect(store.get(A, id(a), []).name).toBe('Сервер БД');
  });

  it('rule 4 (errors): a non-uuid id answers 400 and changes nothing', () => {
    const e = apiError(() => store.update(A, { id: id(a), _relations: { software: ['chrome'] } }));
    expect(e.status).toBe(400);
    expect(e.message).toBe('incorrect relation identifiers for software');
    expect(relIds(A, id(a), 'software')).toEqual(sorted(s1, s2));
  });

  it('rule 4 (errors): a bad second kind rolls back the first kind too', () => {
    const n1 = id(store.create(N, { ip: '10.0.0.1' }));
    const e = apiError(() => store.update(A, { id: id(a), _relations: { network_interfaces: [n1], software: [MISSING] } }));
    expect(e.status).toBe(400);
    expect(relIds(A, id(a), 'network_interfaces')).toEqual([]);
    expect(store.get(N, n1, []).service_asset_id).toBeNull();
  });

  it('create with bad _relations stores nothing', () => {
    const before = count(A);
    const e = apiError(() => asset({ name: 'Лишний', _relations: { software: [MISSING] } }));
    expect(e.status).toBe(400);
    expect(count(A)).toBe(before);
  });

  it('refuses a belongs-to or unknown relation name in _relations', () => {
    const e = apiError(() => store.update(A, { id: id(a), _relations: { responsible_group: [] } }));
    expect(e.status).toBe(400);
    expect(e.message).toContain('responsible_group');
    const e2 = apiError(() => store.update(A, { id: id(a), _relations: { tags: [] } }));
    expect(e2.status).toBe(400);
    expect(e2.message).toContain('tags');
  });

  it('refuses to detach has-many records whose reference is required', () => {
    const i = incident();
    const changes = statusChanges(id(i));
    expect(changes).toHaveLength(1);
    const e = apiError(() => store.update(I, { id: id(i), _relations: { status_changes: [] } }));
    expect(e.status).toBe(400);
    expect(statusChanges(id(i))).toHaveLength(1);
  });

  it('rule sets of a compliance rule (spec example: rules._relations.rule_sets)', () => {
    const rs1 = id(store.create(RS, { name: 'Базовый' }));
    const rs2 = id(store.create(RS, { name: 'PCI DSS' }));
    const rule = store.create(RULES, { name: 'Запрещённое ПО', query: 'teamviewer', _relations: { rule_sets: [rs1] } });
    store.update(RULES, { id: id(rule), _relations: { rule_sets: [rs2] } });
    expect(relIds(RULES, id(rule), 'rule_sets')).toEqual([rs2]);
    expect(relIds(RS, rs1, 'rules')).toEqual([]);
    const e = apiError(() => store.update(RULES, { id: id(rule), _relations: { rule_sets: [MISSING] } }));
    expect(e.message).toBe(ERR.ruleSetsBad);
  });
});

describe('get and find', () => {
  it('get loads every relation when none are named, none when [] is given', () => {
    const a = asset();
    store.create(N, { ip: '10.0.0.1', service_asset_id: id(a) });
    const full = store.get(A, id(a));
    for (const [name, rel] of relationsOf(A)) {
      expect(full, name).toHaveProperty(name);
      if (rel.kind !== 'belongsTo') expect(Array.isArray(full[name])).toBe(true);
    }
    expect((full.network_interfaces as Rec[]).map((n) => n.ip)).toEqual(['10.0.0.1']);
    const bare = store.get(A, id(a), []);
    expect(bare).not.toHaveProperty('network_interfaces');
    expect(bare.name).toBe('Сервер БД');
  });

  it('get answers 404 for an unknown or malformed id; find answers undefined', () => {
    expect(apiError(() => store.get(A, MISSING)).status).toBe(404);
    expect(apiError(() => store.get(A, 'xyz')).status).toBe(404);
    expect(store.find(A, MISSING)).toBeUndefined();
    expect(store.find(A, "'; DROP TABLE service_assets; --")).toBeUndefined();
  });

  it('treats an upper-case uuid (which validation accepts) as the same id', () => {
    const a = asset();
    const upper = id(a).toUpperCase();
    expect(store.find(A, upper)?.id).toBe(a.id);
    expect(store.get(A, upper, []).name).toBe('Сервер БД');
    expect(new Runner(store).search(A, { ...emptySearch(), filters: [{ field: 'id', filter_type: 'equal', value: upper }] }).total).toBe(1);
  });

  it('get rejects an unknown relation name', () => {
    const a = asset();
    const e = apiError(() => store.get(A, id(a), ['owner']));
    expect(e.status).toBe(400);
    expect(e.message).toContain('owner');
  });

  it('answers every declared field', () => {
    const rec = store.get(I, id(incident()), []);
    for (const f of fieldsOf(I)) expect(rec, f.name).toHaveProperty(f.name);
  });
});

describe('delete', () => {
  it('answers {id} and removes the record', () => {
    const a = asset();
    expect(store.delete(A, id(a))).toEqual({ id: a.id });
    expect(store.find(A, id(a))).toBeUndefined();
  });

  it('a non-uuid id answers 400 id should be uuid format', () => {
    const e = apiError(() => store.delete(A, 'server-1'));
    expect(e.status).toBe(400);
    expect(e.message).toBe(ERR.idNotUuid);
  });

  it('an unknown id answers 404 not found', () => {
    const e = apiError(() => store.delete(A, MISSING));
    expect(e.status).toBe(404);
    expect(e.message).toBe(ERR.notFound);
  });

  it('a finding type referenced by an incident answers 409 related data exists with extra.fields', () => {
    const f = finding();
    incident({ finding_id: id(f) });
    const e = apiError(() => store.delete(F, id(f)));
    expect(e.status).toBe(409);
    expect(e.message).toBe(ERR.relatedData);
    expect(e.extra?.fields).toEqual(['service_asset_findings']);
    expect(store.find(F, id(f))).toBeDefined();
  });

  it('an asset with incidents is restricted, one without is not', () => {
    const a1 = asset();
    const a2 = asset({ name: 'Web-сервер' });
    incident({ service_asset_id: id(a1) });
    expect(apiError(() => store.delete(A, id(a1))).status).toBe(409);
    expect(store.delete(A, id(a2))).toEqual({ id: a2.id });
  });

  it('a custom field with values is restricted', () => {
    const cf = store.create(CF, { field_key: 'sla', title: 'SLA', field_type: 'integer' });
    store.create(CFV, { custom_field_id: id(cf), service_asset_finding_id: id(incident()), integer_value: 4 });
    const e = apiError(() => store.delete(CF, id(cf)));
    expect(e.status).toBe(409);
    expect(e.extra?.fields).toEqual(['custom_field_values']);
  });

  it('deleting an incident cascades to its status changes, occurrences, messages and custom field values', () => {
    const i = incident();
    const keep = incident({ title: 'Другой' });
    store.create(O, { event_type: 'manual_source', ip: '10.0.0.5', service_asset_finding_id: id(i) });
    store.create(M, { subject: 'Комментарий', body: 'Проверьте хост', service_asset_finding_id: id(i) });
    const cf = store.create(CF, { field_key: 'sla', title: 'SLA', field_type: 'integer' });
    store.create(CFV, { custom_field_id: id(cf), service_asset_finding_id: id(i), integer_value: 4 });
    store.update(I, { id: id(i), status: 'closed' });
    expect(statusChanges(id(i))).toHaveLength(2);
    store.delete(I, id(i));
    expect(statusChanges(id(i))).toHaveLength(0);
    expect(count(O)).toBe(0);
    expect(count(M)).toBe(0);
    expect(count(CFV)).toBe(0);
    expect(statusChanges(id(keep))).toHaveLength(1);
    expect(count(CF)).toBe(1);
  });

  it('deleting a software group sets the group of its software and children to null', () => {
    const root = store.create(SG, { name: 'Системное ПО' });
    const child = store.create(SG, { name: 'Браузеры', parent_id: id(root) });
    const sw = store.create(SW, { name: 'Firefox', software_group_id: id(root) });
    store.delete(SG, id(root));
    expect(store.get(SG, id(child), []).parent_id).toBeNull();
    expect(store.get(SW, id(sw), []).software_group_id).toBeNull();
  });

  it('deleting one side of a many-to-many link removes the link rows only', () => {
    const sw = store.create(SW, { name: 'Firefox' });
    const a = asset({ _relations: { software: [id(sw)] } });
    store.delete(SW, id(sw));
    expect(relIds(A, id(a), 'software')).toEqual([]);
    expect(tableCount('service_asset_software')).toBe(0);
    expect(store.find(A, id(a))).toBeDefined();
  });

  it('deleting a correlation rule cascades to its integration actions', () => {
    const rule = store.create(R, { name: 'Брутфорс' });
    const script = store.create(getResource('integration_scripts'), { name: 'Блокировка IP' });
    store.create(getResource('engine_go_rules_integration_actions'), { rule_id: id(rule), integration_script_id: id(script), params: [], state: true });
    expect(apiError(() => store.delete(getResource('integration_scripts'), id(script))).status).toBe(409);
    store.delete(R, id(rule));
    expect(count(getResource('engine_go_rules_integration_actions'))).toBe(0);
    expect(store.delete(getResource('integration_scripts'), id(script))).toEqual({ id: script.id });
  });
});

describe('massCreate', () => {
  it('creates all items and answers them in order, with increasing display ids', () => {
    const out = store.massCreate(F, [{ title: 'Первый' }, { title: 'Второй' }, { title: 'Третий' }]);
    expect(out.map((x) => x.title)).toEqual(['Первый', 'Второй', 'Третий']);
    expect(out.map((x) => x.display_id)).toEqual([1, 2, 3]);
    expect(count(F)).toBe(3);
  });

  it('is all-or-nothing: one item with an unknown reference stores nothing', () => {
    const e = apiError(() => store.massCreate(I, [{ title: 'a' }, { title: 'b', finding_id: MISSING }, { title: 'c' }]));
    expect(e.status).toBe(400);
    expect(count(I)).toBe(0);
    expect(count(SC)).toBe(0);
  });

  it('is all-or-nothing: a unique conflict inside the batch stores nothing', () => {
    const e = apiError(() => store.massCreate(SG, [{ name: 'Офис' }, { name: 'Браузеры' }, { name: 'Офис' }]));
    expect(e.status).toBe(409);
    expect(count(SG)).toBe(0);
  });

  it('an empty list creates nothing', () => {
    expect(store.massCreate(SG, [])).toEqual([]);
  });
});

describe('massDelete', () => {
  it('answers per-id codes: 0 ok, 12012 non-uuid, 11003 unknown, 11001 related data', () => {
    const f1 = finding();
    const f2 = finding({ title: 'Используется' });
    incident({ finding_id: id(f2) });
    const res = store.massDelete(F, [id(f1), 'not-a-uuid', MISSING, id(f2)]);
    expect(res).toEqual([
      { id: f1.id, error_code: MASS.ok },
      { id: 'not-a-uuid', error_code: MASS.notUuid },
      { id: MISSING, error_code: MASS.nothingAffected },
      { id: f2.id, error_code: MASS.relatedData },
    ]);
    expect(MASS).toMatchObject({ ok: 0, notUuid: 12012, nothingAffected: 11003, relatedData: 11001 });
    expect(store.find(F, id(f1))).toBeUndefined();
    expect(store.find(F, id(f2))).toBeDefined();
  });

  it('a second deletion of the same id in one call answers 11003', () => {
    const g = store.create(SG, { name: 'Офис' });
    expect(store.massDelete(SG, [id(g), id(g)]).map((r) => r.error_code)).toEqual([0, 11003]);
  });
});

describe('massUpdateField (style 1)', () => {
  it('sets the field on every object and answers 0 for each', () => {
    const a1 = asset();
    const a2 = asset({ name: 'Web-сервер' });
    expect(store.massUpdateField(A, [id(a1), id(a2)], 'location', 'Казань')).toEqual([
      { id: a1.id, error_code: 0 },
      { id: a2.id, error_code: 0 },
    ]);
    expect(new Runner(store).search(A, emptySearch()).items.map((x) => x.location)).toEqual(['Казань', 'Казань']);
  });

  it('answers per-object codes, a failing object not affecting the others', () => {
    const a1 = asset();
    const a2 = asset({ name: 'Web-сервер', location: 'Санкт-Петербург' });
    const res = store.massUpdateField(A, [id(a1), 'srv-1', MISSING, id(a2)], 'location', 'Казань');
    expect(res).toEqual([
      { id: a1.id, error_code: MASS.ok },
      { id: 'srv-1', error_code: MASS.notUuid },
      { id: MISSING, error_code: MASS.nothingAffected },
      { id: a2.id, error_code: MASS.ok },
    ]);
    expect(store.get(A, id(a1), []).location).toBe('Казань');
    expect(store.get(A, id(a2), []).location).toBe('Казань');
  });

  it('a unique conflict fails only that object', () => {
    const g1 = store.create(SG, { name: 'Офис' });
    const g2 = store.create(SG, { name: 'Браузеры' });
    const res = store.massUpdateField(SG, [id(g1), id(g2)], 'name', 'Общее');
    expect(res[0]).toEqual({ id: g1.id, error_code: MASS.ok });
    expect(res[1]!.id).toBe(g2.id);
    expect(res[1]!.error_code).not.toBe(MASS.ok);
    expect(store.get(SG, id(g1), []).name).toBe('Общее');
    expect(store.get(SG, id(g2), []).name).toBe('Браузеры');
  });

  it('validates the value with the field schema before touching anything (400)', () => {
    const a = asset({ value: 1 });
    const e = apiError(() => store.massUpdateField(A, [id(a)], 'value', 9));
    expect(e.status).toBe(400);
    expect(e.message).toContain('value');
    expect(store.get(A, id(a), []).value).toBe(1);
    expect(apiError(() => store.massUpdateField(A, [id(a)], 'colour', 'red')).message).toContain('colour');
  });

  it('normalises timestamps and derives risk like a single update', () => {
    const i = incident({ risklevel: 1 });
    store.massUpdateField(I, [id(i)], 'risklevel', 9.5);
    expect(store.get(I, id(i), [])).toMatchObject({ risklevel: 9.5, risk: 'critical' });
    store.massUpdateField(I, [id(i)], 'c_visible_since', '2024-03-01T12:00:00+03:00');
    expect(store.get(I, id(i), []).c_visible_since).toBe('2024-03-01T09:00:00.000000Z');
  });

  it('runs the incident status side effects for each object', () => {
    const i1 = incident();
    const i2 = incident();
    store.massUpdateField(I, [id(i1), id(i2)], 'status', 'closed');
    for (const i of [i1, i2]) {
      expect(statusChanges(id(i)).map((c) => [c.previous_status, c.status])).toEqual([
        [null, 'new'],
        ['new', 'closed'],
      ]);
      expect(store.get(I, id(i), []).acknowledged_at).not.toBeNull();
    }
  });
});

describe('massUpdateFields (style 2)', () => {
  it('sets several fields on every object', () => {
    const a1 = asset();
    const a2 = asset({ name: 'Web-сервер' });
    const res = store.massUpdateFields(A, [id(a1), id(a2)], { location: 'Новосибирск', value: 3, active: false });
    expect(res.map((r) => r.error_code)).toEqual([0, 0]);
    for (const a of [a1, a2]) expect(store.get(A, id(a), [])).toMatchObject({ location: 'Новосибирск', value: 3, active: false });
  });

  it('is all-or-nothing: an unknown id rolls everything back', () => {
    const a1 = asset();
    const a2 = asset({ name: 'Web-сервер', location: 'Санкт-Петербург' });
    const e = apiError(() => store.massUpdateFields(A, [id(a1), MISSING, id(a2)], { location: 'Новосибирск' }));
    expect(e.status).toBe(404);
    expect(store.get(A, id(a1), []).location).toBe('Москва');
    expect(store.get(A, id(a2), []).location).toBe('Санкт-Петербург');
  });

  it('is all-or-nothing: a non-uuid id answers 400 and nothing changes', () => {
    const a1 = asset();
    const e = apiError(() => store.massUpdateFields(A, [id(a1), 'srv-1'], { location: 'Новосибирск' }));
    expect(e.status).toBe(400);
    expect(e.message).toContain(ERR.idNotUuid);
    expect(store.get(A, id(a1), []).location).toBe('Москва');
  });

  it('is all-or-nothing: a unique conflict on the second object rolls back the first', () => {
    const g1 = store.create(SG, { name: 'Офис' });
    const g2 = store.create(SG, { name: 'Браузеры' });
    const e = apiError(() => store.massUpdateFields(SG, [id(g1), id(g2)], { name: 'Общее', description: 'обновлено' }));
    expect(e.status).toBe(409);
    expect(store.get(SG, id(g1), [])).toMatchObject({ name: 'Офис', description: null });
  });

  it('rolls back incident status side effects with the rest', () => {
    const i1 = incident();
    apiError(() => store.massUpdateFields(I, [id(i1), MISSING], { status: 'closed' }));
    expect(store.get(I, id(i1), []).status).toBe('new');
    expect(statusChanges(id(i1))).toHaveLength(1);
  });
});

describe('deleteAll', () => {
  it('without filters deletes everything and answers {deleted}', () => {
    store.create(SG, { name: 'Офис' });
    store.create(SG, { name: 'Браузеры' });
    expect(new Runner(store).deleteAll(SG)).toEqual({ deleted: 2 });
    expect(count(SG)).toBe(0);
    expect(new Runner(store).deleteAll(SG)).toEqual({ deleted: 0 });
  });

  it('with filters deletes only the matches', () => {
    asset({ location: 'Москва' });
    asset({ name: 'Web-сервер', location: 'Санкт-Петербург' });
    asset({ name: 'АРМ', location: null });
    expect(new Runner(store).deleteAll(A, [{ field: 'location', filter_type: 'substr', value: 'МОСК' }])).toEqual({ deleted: 1 });
    expect(new Runner(store).search(A, emptySearch()).items.map((x) => x.name).sort()).toEqual(['Web-сервер', 'АРМ']);
    expect(new Runner(store).deleteAll(A, [{ field: 'location', filter_type: 'exists' }])).toEqual({ deleted: 1 });
    expect(new Runner(store).search(A, emptySearch()).items.map((x) => x.name)).toEqual(['Web-сервер']);
  });

  it('refuses (409) and deletes nothing when a match is restricted', () => {
    const f1 = finding();
    const f2 = finding({ title: 'Используется' });
    incident({ finding_id: id(f2) });
    const e = apiError(() => new Runner(store).deleteAll(F));
    expect(e.status).toBe(409);
    expect(e.message).toBe(ERR.relatedData);
    expect(count(F)).toBe(2);
    expect(store.find(F, id(f1))).toBeDefined();
  });

  it('rejects a bad filter with 400', () => {
    const e = apiError(() => new Runner(store).deleteAll(SG, [{ field: 'colour', filter_type: 'equal', value: 'x' }]));
    expect(e.status).toBe(400);
  });

  it('deletes the matches of a plan with a text search (deleteMatches), its page ignored', () => {
    asset({ name: 'Почтовый шлюз' });
    asset({ name: 'Почтовый сервер', location: 'Казань' });
    asset({ name: 'Контроллер домена' });
    const plan = compileSearchPlan(A, { ...emptySearch(1, 0), virtual_search: { value: 'почтовый', strict: false } });
    expect(plan.fts.length).toBe(1);
    expect(new Runner(store).deleteMatches(plan)).toEqual({ deleted: 2 });
    expect(new Runner(store).search(A, emptySearch()).items.map((x) => x.name)).toEqual(['Контроллер домена']);
  });

  it('keeps the search index consistent after deleting', () => {
    store.create(SG, { name: 'Антивирусы' });
    new Runner(store).deleteAll(SG);
    store.create(SG, { name: 'Браузеры' });
    const r = new Runner(store).search(SG, { ...emptySearch(), virtual_search: { value: 'вирус', strict: false } });
    expect(r).toEqual({ items: [], total: 0 });
  });
});

describe('group', () => {
  beforeEach(() => {
    incident({ status: 'new', risklevel: 7 });
    incident({ status: 'new', risklevel: 2 });
    incident({ status: 'closed', risklevel: 9 });
    incident({ status: 'working_customer', risklevel: 5 });
    incident({ status: 'new', risklevel: 9.5 });
  });

  it('counts records per value, most frequent first, then by value', () => {
    expect(new Runner(store).group(I, 'status')).toEqual({
      items: [
        { value: 'new', count: 3 },
        { value: 'closed', count: 1 },
        { value: 'working_customer', count: 1 },
      ],
    });
  });

  it('groups the matches of a plan, its text search included (groupPlan)', () => {
    incident({ title: 'Вредоносное ПО на узле', status: 'closed' });
    incident({ title: 'Вредоносное ПО в почте', status: 'closed' });
    incident({ title: 'Вредоносное ПО в архиве', status: 'new' });
    const plan = compileSearchPlan(I, { ...emptySearch(1, 0), virtual_search: { value: 'вредоносное', strict: false } });
    expect(plan.fts.length).toBe(1);
    expect(plan.tally).toBeUndefined();
    expect(new Runner(store).groupPlan(plan, 'status')).toEqual({
      items: [
        { value: 'closed', count: 2 },
        { value: 'new', count: 1 },
      ],
    });
    expect(() => new Runner(store).groupPlan(plan, 'no_such_field')).toThrow(ERR.invalidField);
  });

  it('honours filters', () => {
    expect(new Runner(store).group(I, 'status', [{ field: 'risklevel', filter_type: 'range', value: [7, null] }])).toEqual({
      items: [
        { value: 'new', count: 2 },
        { value: 'closed', count: 1 },
      ],
    });
  });

  it('groups a derived field, booleans decoded, nulls counted', () => {
    expect(new Runner(store).group(I, 'risk').items).toEqual([
      { value: 'critical', count: 2 },
      { value: 'high', count: 1 },
      { value: 'low', count: 1 },
      { value: 'medium', count: 1 },
    ]);
    expect(new Runner(store).group(I, 'external').items).toEqual([{ value: false, count: 5 }]);
    expect(new Runner(store).group(I, 'alert_type').items).toEqual([{ value: null, count: 5 }]);
  });

  it('answers 400 group_field should not be empty when missing', () => {
    for (const g of [undefined, '']) {
      const e = apiError(() => new Runner(store).group(I, g));
      expect(e.status).toBe(400);
      expect(e.message).toBe(ERR.groupFieldEmpty);
    }
  });

  it('answers 400 invalid field for an unknown, JSON or secret field', () => {
    for (const [r, g] of [
      [I, 'severity'],
      [F, 'cpes'],
      [VS, 'password'],
    ] as const) {
      const e = apiError(() => new Runner(store).group(r, g));
      expect(e.status).toBe(400);
      expect(e.message).toBe(ERR.invalidField);
    }
  });
});

describe('meta', () => {
  it('has the contract shape: fields with name/type/filters, actions, instance_actions, relations', () => {
    const m = store.meta(SG);
    expect(m.name).toBe('software_groups');
    expect(m.fields.map((f) => f.name)).toEqual(['id', 'name', 'description', 'parent_id', 'created_at', 'updated_at']);
    for (const f of m.fields) {
      expect(typeof f.name).toBe('string');
      expect(typeof f.type).toBe('string');
      expect(Array.isArray(f.filters)).toBe(true);
    }
    expect(m.fields.find((f) => f.name === 'name')).toMatchObject({
      type: 'string',
      filters: ['equal', 'substr', 'intersection', 'exists'],
      required: true,
      unique: true,
      read_only: false,
      max_length: 250,
    });
    expect(m.fields.find((f) => f.name === 'id')).toMatchObject({ type: 'uuid', read_only: true });
    expect(m.fields.find((f) => f.name === 'parent_id')).toMatchObject({ type: 'uuid', ref: 'software_groups' });
    expect(m.fields.find((f) => f.name === 'created_at')).toMatchObject({ type: 'timestamp', filters: ['equal', 'intersection', 'range', 'exists'] });
    expect(m.actions).toEqual(expect.arrayContaining(['create', 'update', 'search', 'get', 'delete', 'group', 'mass_create', 'mass_delete', 'mass_update', 'delete_all']));
    expect(m.instance_actions).toContainEqual({ action: 'update', params: ['name', 'description', 'parent_id'] });
    expect(m.instance_actions).toContainEqual({ action: 'delete', params: [] });
    expect(m.relations).toEqual(['parent', 'software', 'engine_go_rules']);
    expect(m.tree).toEqual({ parent: 'parent_id' });
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);
  });

  it('describes types, enums, ranges, computed and secret fields', () => {
    const mi = store.meta(I);
    expect(mi.fields.find((f) => f.name === 'status')).toMatchObject({ type: 'string', enum: expect.arrayContaining(['new', 'closed']) });
    expect(mi.fields.find((f) => f.name === 'risklevel')).toMatchObject({ type: 'float', min: 0, max: 10, filters: ['equal', 'intersection', 'range', 'exists'] });
    expect(mi.fields.find((f) => f.name === 'external')).toMatchObject({ type: 'boolean', filters: ['equal', 'exists'] });
    expect(mi.fields.find((f) => f.name === 'display_id')).toMatchObject({ type: 'integer', unique: true });
    const ma = store.meta(A);
    expect(ma.fields.find((f) => f.name === 'risk')).toMatchObject({ type: 'string', read_only: true });
    expect(ma.fields.find((f) => f.name === 'mac_ip')).toMatchObject({ type: 'json', filters: ['intersection', 'exists'] });
    expect(store.meta(F).fields.find((f) => f.name === 'identifier')).toMatchObject({ type: 'json', filters: ['exists'] });
    expect(store.meta(VS).fields.find((f) => f.name === 'password')).toMatchObject({ filters: ['exists'] });
    expect(store.meta(AG).instance_actions.find((a) => a.action === 'update')!.params).not.toContain('config_version');
    expect(store.meta(N).tree).toBeNull();
  });
});

describe('incident status changes (update side effects)', () => {
  it('create stores an initial status change row with no previous status', () => {
    const i = incident();
    expect(statusChanges(id(i)).map((c) => ({ status: c.status, previous_status: c.previous_status }))).toEqual([{ status: 'new', previous_status: null }]);
  });

  it('each change stores a row with previous_status, dated like the update', () => {
    const i = incident();
    const u1 = store.update(I, { id: id(i), status: 'assigned_customer' });
    const u2 = store.update(I, { id: id(i), status: 'working_customer' });
    const rows = statusChanges(id(i));
    expect(rows.map((c) => [c.previous_status, c.status])).toEqual([
      [null, 'new'],
      ['new', 'assigned_customer'],
      ['assigned_customer', 'working_customer'],
    ]);
    expect(rows[1]!.created_at).toBe(u1.updated_at);
    expect(rows[2]!.created_at).toBe(u2.updated_at);
  });

  it('leaving new sets acknowledged_at, and later changes do not move it', () => {
    const i = incident();
    expect(i.acknowledged_at).toBeNull();
    const u1 = store.update(I, { id: id(i), status: 'feedback_required' });
    expect(u1.acknowledged_at).toBe(u1.updated_at);
    const u2 = store.update(I, { id: id(i), status: 'verify_close' });
    expect(u2.acknowledged_at).toBe(u1.acknowledged_at);
  });

  it('records the user who made the change', () => {
    const i = incident();
    const u = store.update(I, { id: id(i), status: 'assigned_customer' }, { userId: USER });
    expect(statusChanges(id(i))[1]!.user_id).toBe(USER);
    expect(u.acknowledged_by).toBe(USER);
    expect(u.updated_by).toBe(USER);
  });

  it.each(['closed', 'invalid', 'risk_accepted'])('going from %s back to an open status sets reopened_at and counts the reopening', (final) => {
    const i = incident();
    store.update(I, { id: id(i), status: final });
    const closed = store.get(I, id(i), []);
    expect(closed.reopened_at).toBeNull();
    expect(closed.c_reopened_count).toBe(0);
    const u = store.update(I, { id: id(i), status: 'working_customer' });
    expect(u.reopened_at).toBe(u.updated_at);
    expect(u.c_reopened_count).toBe(1);
  });

  it('counts every reopening, including back to new', () => {
    const i = incident();
    store.update(I, { id: id(i), status: 'closed' });
    store.update(I, { id: id(i), status: 'new' });
    store.update(I, { id: id(i), status: 'invalid' });
    const u = store.update(I, { id: id(i), status: 'assigned_customer' });
    expect(u.c_reopened_count).toBe(2);
    expect(u.reopened_at).toBe(u.updated_at);
  });

  it('moving between final statuses or between open statuses is not a reopening', () => {
    const i = incident();
    store.update(I, { id: id(i), status: 'working_customer' });
    store.update(I, { id: id(i), status: 'closed' });
    const u = store.update(I, { id: id(i), status: 'risk_accepted' });
    expect(u.c_reopened_count).toBe(0);
    expect(u.reopened_at).toBeNull();
  });

  it('an unchanged status stores no row and changes nothing', () => {
    const i = incident();
    const u = store.update(I, { id: id(i), status: 'new' });
    expect(statusChanges(id(i))).toHaveLength(1);
    expect(u.acknowledged_at).toBeNull();
    expect(u.c_reopened_count).toBe(0);
    const closed = store.update(I, { id: id(i), status: 'closed' });
    const again = store.update(I, { id: id(i), status: 'closed' });
    expect(statusChanges(id(i))).toHaveLength(2);
    expect(again.acknowledged_at).toBe(closed.acknowledged_at);
  });

  it('an update without status stores no row', () => {
    const i = incident();
    store.update(I, { id: id(i), risklevel: 8 });
    expect(statusChanges(id(i))).toHaveLength(1);
  });

  it('a failed update stores no status change row', () => {
    const i = incident();
    apiError(() => store.update(I, { id: id(i), status: 'closed', finding_id: MISSING }));
    expect(statusChanges(id(i))).toHaveLength(1);
    expect(store.get(I, id(i), []).status).toBe('new');
  });

  it('status changes are listed through the incident relations', () => {
    const i = incident();
    store.update(I, { id: id(i), status: 'closed' });
    const rec = store.get(I, id(i), ['status_changes']);
    expect((rec.status_changes as Rec[]).map((c) => c.status)).toEqual(['new', 'closed']);
  });
});

describe('input sources (spec: InputSource)', () => {
  it('stores pipelines as an array and booleans with their defaults', () => {
    const s = store.create(IS, { name: 'Syslog UDP', port: 5514, input_type: 'raw-json', pipelines: [{ name: 'parse', steps: 2 }] });
    expect(s).toMatchObject({ is_active: true, check_min: false, check_max: false, no_raw: false, port: 5514, pipelines: [{ name: 'parse', steps: 2 }] });
  });
});
