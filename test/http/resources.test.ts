// Every generic operation of every registry resource, over a real socket, generated from the
// declarations: create, get (+ relations query), search, update, _meta, group, mass_*, delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES, fieldsOf, getResource, type ResourceDef } from '../../src-shared/resources/index';
import { search, startTestServer, type TestServer } from '../helpers/server';
import {
  B,
  CM,
  SECRET_MASK,
  TS_RE,
  UUID_RE,
  buildCreate,
  changeOf,
  createByName,
  createRecord,
  groupFieldOf,
  hasPostUpdate,
  idFilter,
  listRelationNames,
  plain,
  postCreate,
  relationNames,
  updateBody,
  uuid,
} from './gen';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(async () => {
  await srv?.stop();
});

const UNKNOWN = '6f1c1b8e-2f0f-4a44-9a39-000000000000';

/** The path of a resource's update (named or generic: both at /update). */
const updatePath = (r: ResourceDef) => `${B}/${r.name}/update`;

async function getRec(r: ResourceDef, id: string, query = ''): Promise<Record<string, any>> {
  const res = await srv.call('GET', `${B}/${r.name}/${id}${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

function expectEcho(r: ResourceDef, rec: Record<string, any>, body: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(body)) {
    if (k === '_relations') continue;
    const def = r.fields[k]!;
    if (def.secret) expect(rec[k], k).toBe(SECRET_MASK);
    else expect(rec[k], k).toEqual(v);
  }
}

for (const r of RESOURCES) {
  describe(`resource ${r.name}`, () => {
    let body: Record<string, unknown>;
    let created: { status: number; body: any; text: string };
    let rec: Record<string, any>;
    let other: Record<string, any>;

    beforeAll(async () => {
      body = await buildCreate(srv, r);
      created = await postCreate(srv, r, body);
      rec = created.body;
      other = await createRecord(srv, r);
    });

    it('create answers 201 with the record: the fields sent, id and six-digit UTC timestamps', () => {
      expect(created.status, created.text).toBe(201);
      expectEcho(r, rec, body);
      expect(rec.id).toMatch(UUID_RE);
      expect(rec.created_at).toMatch(TS_RE);
      expect(rec.updated_at).toMatch(TS_RE);
      for (const f of fieldsOf(r)) {
        expect(rec, `field ${f.name} present`).toHaveProperty(f.name);
        if (f.kind === 'timestamp' && rec[f.name] !== null) expect(rec[f.name], f.name).toMatch(TS_RE);
      }
    });

    const required = Object.entries(r.fields).find(([, d]) => d.required && d.default === undefined && !d.readOnly);
    if (required) {
      it(`create without the required field ${required[0]} answers 400 naming it`, async () => {
        const { [required[0]]: _drop, ...rest } = await buildCreate(srv, r);
        const res = await postCreate(srv, r, rest);
        expect(res.status, res.text).toBe(400);
        expect(res.body.error_code).toBe(400);
        expect(res.body.error).toContain(required[0]);
      });
    }

    for (const [uf] of Object.entries(r.fields).filter(([, d]) => d.unique && !d.sequence)) {
      it(`create with an existing ${uf} answers 409 with extra.fields [${uf}]; nothing stored`, async () => {
        const dup = await buildCreate(srv, r, { over: { [uf]: rec[uf] } });
        const before = (await srv.call('POST', `${B}/${r.name}/search`, search({ limit: 0 }))).body.total;
        const res = await postCreate(srv, r, dup);
        expect(res.status, res.text).toBe(409);
        expect(res.body.error_code).toBe(409);
        expect(typeof res.body.error).toBe('string');
        expect(res.body.extra).toEqual({ fields: [uf] });
        expect((await srv.call('POST', `${B}/${r.name}/search`, search({ limit: 0 }))).body.total).toBe(before);
      });
    }

    it('get by id answers 200 with every relation loaded when `relations` is absent', async () => {
      const got = await getRec(r, rec.id);
      expect(plain(r, got)).toEqual(plain(r, rec));
      for (const n of relationNames(r)) {
        expect(got, `relation ${n} loaded`).toHaveProperty(n);
        const kind = r.relations![n]!.kind;
        if (kind === 'belongsTo') expect(got[n] === null || typeof got[n] === 'object').toBe(true);
        else expect(Array.isArray(got[n]), n).toBe(true);
      }
      for (const [n, rel] of Object.entries(r.relations ?? {})) {
        if (rel.kind === 'belongsTo' && rec[rel.fk]) expect(got[n]?.id, n).toBe(rec[rel.fk]);
      }
    });

    it('get with `?relations=` (present, empty) loads no links', async () => {
      const got = await getRec(r, rec.id, '?relations=');
      for (const n of relationNames(r)) expect(got, n).not.toHaveProperty(n);
      expect(plain(r, got)).toEqual(plain(r, rec));
    });

    it('get with `?relations=a,b` loads exactly those links', async () => {
      const names = relationNames(r).slice(0, 2);
      const got = await getRec(r, rec.id, `?relations=${names.join(',')}`);
      for (const n of relationNames(r)) {
        if (names.includes(n)) expect(got, n).toHaveProperty(n);
        else expect(got, n).not.toHaveProperty(n);
      }
    });

    it('get of an unknown relation answers 400', async () => {
      const res = await srv.call('GET', `${B}/${r.name}/${rec.id}?relations=no_such_link`);
      expect(res.status).toBe(400);
      expect(res.body.error_code).toBe(400);
    });

    it('get: a non-uuid id is 400, an unknown uuid 404 `not found`, no id 400 `id is empty`', async () => {
      const bad = await srv.call('GET', `${B}/${r.name}/not-a-uuid`);
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'id should be uuid format', error_code: 400 });
      const missing = await srv.call('GET', `${B}/${r.name}/${UNKNOWN}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: 'not found', error_code: 404 });
      for (const p of [`${B}/${r.name}`, `${B}/${r.name}/`]) {
        const empty = await srv.call('GET', p);
        expect(empty.status, p).toBe(400);
        expect(empty.body, p).toEqual({ error: 'id is empty', error_code: 400 });
      }
    });

    it('search answers items and total (all matches, not the page); include_fields keeps only those fields', async () => {
      const res = await srv.call('POST', `${B}/${r.name}/search`, search({ filters: [idFilter([rec.id, other.id])], limit: 1 }));
      expect(res.status, res.text).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.items).toHaveLength(1);
      expect([rec.id, other.id]).toContain(res.body.items[0].id);

      const inc = await srv.call('POST', `${B}/${r.name}/search`, search({ filters: [idFilter([rec.id])], include_fields: ['id', r.label] }));
      expect(inc.status, inc.text).toBe(200);
      expect(inc.body.total).toBe(1);
      expect(Object.keys(inc.body.items[0]).sort()).toEqual(['id', r.label].sort());
      expect(inc.body.items[0][r.label]).toEqual(r.fields[r.label]!.secret ? SECRET_MASK : rec[r.label]);

      const full = await srv.call('POST', `${B}/${r.name}/search`, search({ filters: [idFilter([rec.id])] }));
      // engine_go_rules/search is the search with reload update: the searches above cleared `reload`.
      expect(full.body.items[0]).toEqual(r.name === 'engine_go_rules' ? { ...plain(r, rec), reload: false } : plain(r, rec));
    });

    it('search exclude_fields drops those fields', async () => {
      const drop = Object.keys(r.fields).slice(0, 2);
      const res = await srv.call('POST', `${B}/${r.name}/search`, search({ filters: [idFilter([rec.id])], exclude_fields: drop }));
      expect(res.status, res.text).toBe(200);
      for (const f of drop) expect(res.body.items[0], f).not.toHaveProperty(f);
      expect(res.body.items[0].id).toBe(rec.id);
    });

    it('search with `relations` loads those links; `_relations` answers the ids', async () => {
      const rels = relationNames(r).slice(0, 1);
      const ids = listRelationNames(r).slice(0, 1);
      const res = await srv.call('POST', `${B}/${r.name}/search`, search({ filters: [idFilter([rec.id])], relations: rels, _relations: ids }));
      expect(res.status, res.text).toBe(200);
      for (const n of rels) expect(res.body.items[0], n).toHaveProperty(n);
      for (const n of ids) expect(Array.isArray(res.body.items[0]._relations?.[n]), n).toBe(true);
    });

    it('update via PUT is partial: the field given changes, every other field stays', async () => {
      const before = await getRec(r, rec.id, '?relations=');
      const ch = changeOf(r);
      const res = await srv.call('PUT', updatePath(r), updateBody(r, before, { [ch.field]: ch.value }));
      expect(res.status, res.text).toBe(200);
      expect(res.body[ch.field]).toEqual(ch.value);
      const after = await getRec(r, rec.id, '?relations=');
      // engine_go_rules: an update may set `reload` (named.test.ts covers it)
      const skip = new Set([ch.field, 'updated_at', ...(r.name === 'engine_go_rules' ? ['reload'] : [])]);
      for (const k of Object.keys(before)) if (!skip.has(k)) expect(after[k], k).toEqual(before[k]);
      expect(after[ch.field]).toEqual(ch.value);
      expect(after.updated_at).toMatch(TS_RE);
      expect(after.updated_at > before.updated_at).toBe(true);
      rec = { ...rec, ...after };
    });

    if (hasPostUpdate(r)) {
      it('update answers at POST /update as well', async () => {
        const ch = changeOf(r);
        const res = await srv.call('POST', updatePath(r), updateBody(r, rec, { [ch.field]: ch.value }));
        expect(res.status, res.text).toBe(200);
        expect((await getRec(r, rec.id, '?relations='))[ch.field]).toEqual(ch.value);
      });
    }

    it('update without an id, or with a non-uuid id, answers 400', async () => {
      const ch = changeOf(r);
      const { id: _id, ...noId } = updateBody(r, rec, { [ch.field]: ch.value });
      for (const body of [noId, { ...noId, id: 'not-a-uuid' }, { ...noId, id: '' }]) {
        const res = await srv.call('PUT', updatePath(r), body);
        expect(res.status, JSON.stringify(body.id)).toBe(400);
        expect(res.body.error_code).toBe(400);
      }
    });

    it('update of an unknown uuid answers 404 `not found`', async () => {
      const ch = changeOf(r);
      const res = await srv.call('PUT', updatePath(r), updateBody(r, { ...rec, id: UNKNOWN }, { [ch.field]: ch.value }));
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual({ error: 'not found', error_code: 404 });
    });

    it('_meta answers fields, actions, instance_actions and relations', async () => {
      const res = await srv.call('GET', `${B}/${r.name}/_meta`);
      expect(res.status, res.text).toBe(200);
      const m = res.body;
      expect(m.fields.map((f: any) => f.name).sort()).toEqual(fieldsOf(r).map((f) => f.name).sort());
      for (const f of m.fields) {
        expect(typeof f.type).toBe('string');
        expect(Array.isArray(f.filters)).toBe(true);
      }
      expect(m.actions).toEqual(expect.arrayContaining(['create', 'update', 'search', 'get', 'delete', 'group', 'mass_create', 'mass_delete', 'mass_update']));
      expect(Array.isArray(m.instance_actions)).toBe(true);
      for (const a of m.instance_actions) {
        expect(typeof a.action).toBe('string');
        expect(Array.isArray(a.params)).toBe(true);
      }
      expect([...m.relations].sort()).toEqual(relationNames(r).sort());
    });

    it('group counts records by the values of a field; an unknown field is 400 `invalid field`, none 400', async () => {
      const field = groupFieldOf(r);
      const a = await createRecord(srv, r);
      const b = await createRecord(srv, r);
      expect(a[field]).toEqual(b[field]);
      const res = await srv.call('POST', `${B}/${r.name}/group`, { group_field: field, filters: [idFilter([a.id, b.id])] });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ items: [{ value: a[field], count: 2 }] });
      const bad = await srv.call('POST', `${B}/${r.name}/group`, { group_field: 'no_such_field' });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'invalid field', error_code: 400 });
      const none = await srv.call('POST', `${B}/${r.name}/group`, {});
      expect(none.status).toBe(400);
      expect(none.body).toEqual({ error: 'group_field should not be empty', error_code: 400 });
    });

    it('mass_create takes an array and answers 201 {items, total}', async () => {
      const bodies = [await buildCreate(srv, r), await buildCreate(srv, r)];
      const res = await srv.call('POST', `${B}/${r.name}/mass_create`, bodies);
      expect(res.status, res.text).toBe(201);
      expect(res.body.total).toBe(2);
      expect(res.body.items).toHaveLength(2);
      bodies.forEach((b, i) => expectEcho(r, res.body.items[i], b));
      for (const it of res.body.items) expect((await getRec(r, it.id, '?relations=')).id).toBe(it.id);
    });

    it('mass_create takes {items} too', async () => {
      const bodies = [await buildCreate(srv, r)];
      const res = await srv.call('POST', `${B}/${r.name}/mass_create`, { items: bodies });
      expect(res.status, res.text).toBe(201);
      expect(res.body.total).toBe(1);
      expectEcho(r, res.body.items[0], bodies[0]!);
    });

    it('mass_update {ids, field, value} answers a code per object: 0 ok, 11003 unknown id, 12012 not a uuid', async () => {
      const a = await createRecord(srv, r);
      const b = await createRecord(srv, r);
      const ch = changeOf(r);
      const res = await srv.call('POST', `${B}/${r.name}/mass_update`, { ids: [a.id, UNKNOWN, 'not-a-uuid', b.id], field: ch.field, value: ch.value });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        results: [
          { id: a.id, error_code: 0 },
          { id: UNKNOWN, error_code: 11003 },
          { id: 'not-a-uuid', error_code: 12012 },
          { id: b.id, error_code: 0 },
        ],
      });
      for (const x of [a, b]) expect((await getRec(r, x.id, '?relations='))[ch.field]).toEqual(ch.value);
    });

    it('mass_update {ids, fields} updates all the objects, or none when one fails', async () => {
      const a = await createRecord(srv, r);
      const b = await createRecord(srv, r);
      const ch = changeOf(r);
      const res = await srv.call('POST', `${B}/${r.name}/mass_update`, { ids: [a.id, b.id], fields: { [ch.field]: ch.value } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.results).toEqual([
        { id: a.id, error_code: 0 },
        { id: b.id, error_code: 0 },
      ]);
      for (const x of [a, b]) expect((await getRec(r, x.id, '?relations='))[ch.field]).toEqual(ch.value);

      const c = await createRecord(srv, r);
      const ch2 = changeOf(r);
      const fail = await srv.call('POST', `${B}/${r.name}/mass_update`, { ids: [c.id, UNKNOWN], fields: { [ch2.field]: ch2.value } });
      expect(fail.status).toBeGreaterThanOrEqual(400);
      expect(fail.body.error_code).toBe(fail.status);
      expect((await getRec(r, c.id, '?relations='))[ch2.field]).toEqual(c[ch2.field]);
    });

    it('mass_delete answers a code per id and deletes the known ones', async () => {
      const a = await createRecord(srv, r);
      const res = await srv.call('POST', `${B}/${r.name}/mass_delete`, { ids: [a.id, UNKNOWN, 'not-a-uuid'] });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        results: [
          { id: a.id, error_code: 0 },
          { id: UNKNOWN, error_code: 11003 },
          { id: 'not-a-uuid', error_code: 12012 },
        ],
      });
      expect((await srv.call('GET', `${B}/${r.name}/${a.id}`)).status).toBe(404);
    });

    it('DELETE /{id} answers 200 {id}; then the record is gone; non-uuid 400, unknown 404', async () => {
      const a = await createRecord(srv, r);
      const res = await srv.call('DELETE', `${B}/${r.name}/${a.id}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ id: a.id });
      const gone = await srv.call('GET', `${B}/${r.name}/${a.id}`);
      expect(gone.status).toBe(404);
      const again = await srv.call('DELETE', `${B}/${r.name}/${a.id}`);
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ error: 'not found', error_code: 404 });
      const bad = await srv.call('DELETE', `${B}/${r.name}/not-a-uuid`);
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'id should be uuid format', error_code: 400 });
    });

    it('DELETE /all with filters deletes the matching records and answers {deleted: N}', async () => {
      const a = await createRecord(srv, r);
      const b = await createRecord(srv, r);
      const res = await srv.call('DELETE', `${B}/${r.name}/all`, { filters: [idFilter([a.id, b.id])] });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ deleted: 2 });
      const left = await srv.call('POST', `${B}/${r.name}/search`, search({ filters: [idFilter([a.id, b.id, rec.id])] }));
      expect(left.body.items.map((x: any) => x.id)).toEqual([rec.id]);
    });
  });
}

describe('_relations over HTTP (update link management)', () => {
  const sg = getResource('software_groups');

  async function relIds(id: string): Promise<Record<string, string[]>> {
    const got = await getRec(sg, id, '?relations=');
    return got._relations;
  }

  const sorted = (a: string[]) => [...a].sort();

  for (const [link, target] of [
    ['engine_go_rules', 'engine_go_rules'],
    ['software', 'software'],
  ] as const) {
    it(`${link} (${sg.relations![link]!.kind}): absent unchanged, list → equal, [] → none, bad ids → 400`, async () => {
      const g = await createByName(srv, 'software_groups');
      const t1 = await createByName(srv, target);
      const t2 = await createByName(srv, target);
      const t3 = await createByName(srv, target);

      let res = await srv.call('PUT', `${B}/software_groups/update`, { id: g.id, _relations: { [link]: [t1.id, t2.id] } });
      expect(res.status, res.text).toBe(200);
      expect(sorted((await relIds(g.id))[link]!)).toEqual(sorted([t1.id, t2.id]));

      // 1. absent: unchanged
      res = await srv.call('PUT', `${B}/software_groups/update`, { id: g.id, description: 'без связей' });
      expect(res.status, res.text).toBe(200);
      expect(sorted((await relIds(g.id))[link]!)).toEqual(sorted([t1.id, t2.id]));
      // an empty _relations object changes nothing either
      res = await srv.call('PUT', `${B}/software_groups/update`, { id: g.id, _relations: {} });
      expect(res.status, res.text).toBe(200);
      expect(sorted((await relIds(g.id))[link]!)).toEqual(sorted([t1.id, t2.id]));

      // 2. a list: made equal
      res = await srv.call('PUT', `${B}/software_groups/update`, { id: g.id, _relations: { [link]: [t2.id, t3.id] } });
      expect(res.status, res.text).toBe(200);
      expect(sorted((await relIds(g.id))[link]!)).toEqual(sorted([t2.id, t3.id]));
      const loaded = await getRec(sg, g.id, `?relations=${link}`);
      expect(sorted(loaded[link].map((x: any) => x.id))).toEqual(sorted([t2.id, t3.id]));

      // 4. bad ids: 400 and nothing changed
      for (const bad of [['not-a-uuid'], [UNKNOWN], [t1.id, UNKNOWN]]) {
        res = await srv.call('PUT', `${B}/software_groups/update`, { id: g.id, description: 'x', _relations: { [link]: bad } });
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.error_code).toBe(400);
        expect(sorted((await relIds(g.id))[link]!)).toEqual(sorted([t2.id, t3.id]));
      }
      expect((await getRec(sg, g.id, '?relations=')).description).not.toBe('x');

      // 3. []: none
      res = await srv.call('PUT', `${B}/software_groups/update`, { id: g.id, _relations: { [link]: [] } });
      expect(res.status, res.text).toBe(200);
      expect((await relIds(g.id))[link]).toEqual([]);
      // the targets themselves still exist
      for (const t of [t1, t2, t3]) expect((await srv.call('GET', `${B}/${target}/${t.id}?relations=`)).status).toBe(200);
    });
  }

  it('an unknown relation key in _relations is 400', async () => {
    const g = await createByName(srv, 'software_groups');
    const res = await srv.call('PUT', `${B}/software_groups/update`, { id: g.id, _relations: { no_such_link: [] } });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
  });

  it('_relations on create sets the links', async () => {
    const t1 = await createByName(srv, 'engine_go_rules');
    const res = await srv.call('POST', `${B}/software_groups/create`, { name: `с-связями-${uuid()}`, _relations: { engine_go_rules: [t1.id] } });
    expect(res.status, res.text).toBe(201);
    expect((await relIds(res.body.id)).engine_go_rules).toEqual([t1.id]);
  });
});

describe('logmule_go_* aliases answer like engine_go_*', () => {
  for (const r of RESOURCES.filter((x) => x.name.startsWith('engine_go_'))) {
    const alias = r.name.replace(/^engine_go_/, 'logmule_go_');
    it(`${alias}: get, search and _meta`, async () => {
      const rec = await createRecord(srv, r);
      const viaAlias = await srv.call('GET', `${B}/${alias}/${rec.id}`);
      const direct = await srv.call('GET', `${B}/${r.name}/${rec.id}`);
      expect(viaAlias.status, viaAlias.text).toBe(200);
      expect(viaAlias.body).toEqual(direct.body);
      const s = await srv.call('POST', `${B}/${alias}/search`, search({ filters: [idFilter([rec.id])] }));
      expect(s.status, s.text).toBe(200);
      expect(s.body.items.map((x: any) => x.id)).toEqual([rec.id]);
      const m = await srv.call('GET', `${B}/${alias}/_meta`);
      expect(m.status).toBe(200);
      expect(m.body).toEqual((await srv.call('GET', `${B}/${r.name}/_meta`)).body);
      const missing = await srv.call('GET', `${B}/${alias}/${UNKNOWN}`);
      expect(missing.body).toEqual({ error: 'not found', error_code: 404 });
    });
  }

  it('logmule_go_rules: create, update and delete through the alias', async () => {
    const res = await srv.call('POST', `${B}/logmule_go_rules/create`, { name: 'через псевдоним' });
    expect(res.status, res.text).toBe(201);
    const upd = await srv.call('PUT', `${B}/logmule_go_rules/update`, { id: res.body.id, description: 'd' });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body.description).toBe('d');
    const del = await srv.call('DELETE', `${B}/logmule_go_rules/${res.body.id}`);
    expect(del.body).toEqual({ id: res.body.id });
    expect((await srv.call('GET', `${B}/engine_go_rules/${res.body.id}`)).status).toBe(404);
  });
});

describe('agents at /cm/api/v2/agents', () => {
  it('create, get, search, update, _meta and delete answer like /cruddy/v2/agents', async () => {
    const res = await srv.call('POST', `${CM}/agents/create`, { name: 'агент-1', hostname: 'host1', pending_config: { a: 1 } });
    expect(res.status, res.text).toBe(201);
    const id = res.body.id;
    const got = await srv.call('GET', `${CM}/agents/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual((await srv.call('GET', `${B}/agents/${id}`)).body);
    expect(got.body.name).toBe('агент-1');
    const s = await srv.call('POST', `${CM}/agents/search`, search({ filters: [idFilter([id])] }));
    expect(s.body).toMatchObject({ total: 1, items: [{ id }] });
    const upd = await srv.call('PUT', `${CM}/agents/update`, { id, hostname: 'host2' });
    expect(upd.status, upd.text).toBe(200);
    expect((await srv.call('GET', `${B}/agents/${id}?relations=`)).body.hostname).toBe('host2');
    expect((await srv.call('GET', `${CM}/agents/_meta`)).status).toBe(200);
    expect((await srv.call('GET', `${CM}/agents/${UNKNOWN}`)).body).toEqual({ error: 'not found', error_code: 404 });
    const del = await srv.call('DELETE', `${CM}/agents/${id}`);
    expect(del.body).toEqual({ id });
    expect((await srv.call('GET', `${B}/agents/${id}`)).status).toBe(404);
  });
});

describe('mass operations: related data', () => {
  it('mass_delete answers 11001 for a record other records still reference (restrict), and keeps it', async () => {
    const finding = await createByName(srv, 'findings');
    await createByName(srv, 'service_asset_findings', { finding_id: finding.id });
    const free = await createByName(srv, 'findings');
    const res = await srv.call('POST', `${B}/findings/mass_delete`, { ids: [finding.id, free.id] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([
      { id: finding.id, error_code: 11001 },
      { id: free.id, error_code: 0 },
    ]);
    expect((await srv.call('GET', `${B}/findings/${finding.id}?relations=`)).status).toBe(200);
    expect((await srv.call('GET', `${B}/findings/${free.id}?relations=`)).status).toBe(404);
  });
});

describe('mass_update: storage errors per object', () => {
  it('a unique conflict on one object answers 11002 for it and keeps the others', async () => {
    const a = await createByName(srv, 'software_groups');
    const b = await createByName(srv, 'software_groups');
    const name = `общее-имя-${uuid()}`;
    const res = await srv.call('POST', `${B}/software_groups/mass_update`, { ids: [a.id, b.id], field: 'name', value: name });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([
      { id: a.id, error_code: 0 },
      { id: b.id, error_code: 11002 },
    ]);
    expect((await srv.call('GET', `${B}/software_groups/${a.id}?relations=`)).body.name).toBe(name);
    expect((await srv.call('GET', `${B}/software_groups/${b.id}?relations=`)).body.name).toBe(b.name);
  });

  it('an invalid value for the field answers 400 before anything is written', async () => {
    const a = await createByName(srv, 'service_assets');
    const res = await srv.call('POST', `${B}/service_assets/mass_update`, { ids: [a.id], field: 'value', value: 9 });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
    const unknown = await srv.call('POST', `${B}/service_assets/mass_update`, { ids: [a.id], field: 'no_such_field', value: 1 });
    expect(unknown.status).toBe(400);
    expect((await srv.call('GET', `${B}/service_assets/${a.id}?relations=`)).body.value).toBe(a.value);
  });
});

describe('search request semantics (service_assets)', () => {
  let A: any;
  let Bx: any;
  let C: any;
  let group: any;
  let rg: any;
  let p: string;

  beforeAll(async () => {
    p = `поиск-${uuid().slice(0, 8)}`;
    rg = await createByName(srv, 'responsible_groups');
    A = await createByName(srv, 'service_assets', { name: `${p}-Альфа`, value: 1, active: true, description: 'Сервер БД', location: null, responsible_group_id: rg.id });
    Bx = await createByName(srv, 'service_assets', { name: `${p}-бета`, value: 3, active: false, description: null, location: 'ЦОД' });
    C = await createByName(srv, 'service_assets', { name: `${p}-Гамма`, value: 5, active: true, description: 'веб-СЕРВЕР', location: 'ЦОД' });
    group = await createByName(srv, 'service_asset_groups', { _relations: { service_assets: [A.id, C.id] } });
  });

  async function find(over: Record<string, unknown>): Promise<string[]> {
    const filters = [idFilter([A.id, Bx.id, C.id]), ...((over.filters as unknown[]) ?? [])];
    const res = await srv.call('POST', `${B}/service_assets/search`, search({ ordering: [{ field: 'value', direction: 'asc' }], ...over, filters }));
    expect(res.status, res.text).toBe(200);
    return res.body.items.map((x: any) => x.id);
  }
  const f = (field: string, filter_type: string, value?: unknown, negation?: boolean) => ({ field, filter_type, value, ...(negation === undefined ? {} : { negation }) });

  it('equal on string, integer and boolean fields', async () => {
    expect(await find({ filters: [f('name', 'equal', `${p}-бета`)] })).toEqual([Bx.id]);
    expect(await find({ filters: [f('value', 'equal', 3)] })).toEqual([Bx.id]);
    expect(await find({ filters: [f('active', 'equal', false)] })).toEqual([Bx.id]);
    expect(await find({ filters: [f('value', 'equal', 3, true)] })).toEqual([A.id, C.id]);
  });

  it('substr is a case-insensitive substring match, Cyrillic included', async () => {
    expect(await find({ filters: [f('name', 'substr', 'альф')] })).toEqual([A.id]);
    expect(await find({ filters: [f('name', 'substr', 'БЕТ')] })).toEqual([Bx.id]);
    expect(await find({ filters: [f('description', 'substr', 'сервер')] })).toEqual([A.id, C.id]);
    expect(await find({ filters: [f('description', 'substr', 'сервер', true)] })).toEqual([Bx.id]);
  });

  it('intersection: the field value is within the array', async () => {
    expect(await find({ filters: [f('value', 'intersection', [1, 5])] })).toEqual([A.id, C.id]);
    expect(await find({ filters: [f('name', 'intersection', [`${p}-бета`, 'нет такого'])] })).toEqual([Bx.id]);
  });

  it('range: the field value is within the range', async () => {
    expect(await find({ filters: [f('value', 'range', [2, 5])] })).toEqual([Bx.id, C.id]);
    expect(await find({ filters: [f('created_at', 'range', [A.created_at, Bx.created_at])] })).toEqual([A.id, Bx.id]);
  });

  it('exists: the column equals null (negation: it does not)', async () => {
    expect(await find({ filters: [f('description', 'exists')] })).toEqual([Bx.id]);
    expect(await find({ filters: [f('location', 'exists')] })).toEqual([A.id]);
    expect(await find({ filters: [f('description', 'exists', undefined, true)] })).toEqual([A.id, C.id]);
  });

  it('related: by ids of a link; an empty array checks for absence (negation: presence)', async () => {
    expect(await find({ filters: [f('service_asset_groups', 'related', [group.id])] })).toEqual([A.id, C.id]);
    expect(await find({ filters: [f('service_asset_groups', 'related', group.id)] })).toEqual([A.id, C.id]);
    expect(await find({ filters: [f('service_asset_groups', 'related', [])] })).toEqual([Bx.id]);
    expect(await find({ filters: [f('service_asset_groups', 'related', [], true)] })).toEqual([A.id, C.id]);
    expect(await find({ filters: [f('responsible_group', 'related', [rg.id])] })).toEqual([A.id]);
  });

  it('ordering, limit and offset; total counts every match', async () => {
    expect(await find({ ordering: [{ field: 'value', direction: 'desc' }] })).toEqual([C.id, Bx.id, A.id]);
    const res = await srv.call('POST', `${B}/service_assets/search`, search({ filters: [idFilter([A.id, Bx.id, C.id])], ordering: [{ field: 'value', direction: 'asc' }], limit: 1, offset: 1 }));
    expect(res.body.items.map((x: any) => x.id)).toEqual([Bx.id]);
    expect(res.body.total).toBe(3);
    const past = await srv.call('POST', `${B}/service_assets/search`, search({ filters: [idFilter([A.id, Bx.id, C.id])], limit: 10, offset: 5 }));
    expect(past.body.items).toEqual([]);
    expect(past.body.total).toBe(3);
  });

  it('virtual_search: a case-insensitive substring of any string field; strict: an exact value', async () => {
    expect(await find({ virtual_search: { value: 'гамм', strict: false } })).toEqual([C.id]);
    expect(await find({ virtual_search: { value: 'цод', strict: false } })).toEqual([Bx.id, C.id]);
    expect(await find({ virtual_search: { value: `${p}-Гамма`, strict: true } })).toEqual([C.id]);
    expect(await find({ virtual_search: { value: 'Гамм', strict: true } })).toEqual([]);
  });

  it('unknown fields, filter types or bad values answer 400', async () => {
    for (const body of [
      search({ filters: [f('no_such_field', 'equal', 1)] }),
      search({ filters: [f('name', 'no_such_type', 1)] }),
      search({ filters: [f('value', 'equal', 'three')] }),
      search({ ordering: [{ field: 'no_such_field', direction: 'asc' }] }),
      search({ ordering: [{ field: 'name', direction: 'up' }] }),
      search({ include_fields: ['no_such_field'] }),
      search({ relations: ['no_such_link'] }),
      search({ limit: -1 }),
    ]) {
      const res = await srv.call('POST', `${B}/service_assets/search`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code).toBe(400);
    }
  });
});

describe('DELETE /all without filters', () => {
  it('deletes every record of the resource and answers {deleted: N}', async () => {
    const count = () => srv.store.get1<{ n: number }>('SELECT COUNT(*) AS n FROM software_groups')!.n;
    const already = count();
    await createByName(srv, 'software_groups');
    await createByName(srv, 'software_groups');
    const before = await srv.call('POST', `${B}/software_groups/search`, search({ limit: 0 }));
    expect(before.body.total).toBe(already + 2);
    const res = await srv.call('DELETE', `${B}/software_groups/all`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ deleted: before.body.total });
    const after = await srv.call('POST', `${B}/software_groups/search`, search());
    expect(after.body.total).toBe(0);
  });

  it('a DELETE /all with no body and no Content-Type deletes everything too', async () => {
    const already = srv.store.get1<{ n: number }>('SELECT COUNT(*) AS n FROM engine_go_modules')!.n;
    await createByName(srv, 'engine_go_modules');
    const before = await srv.call('POST', `${B}/engine_go_modules/search`, search({ limit: 0 }));
    expect(before.body.total).toBe(already + 1);
    const res = await srv.call('DELETE', `${B}/engine_go_modules/all`, undefined, { 'Content-Type': '' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ deleted: before.body.total });
  });

  it('an empty filters list deletes everything too', async () => {
    await createByName(srv, 'value_stores');
    const before = await srv.call('POST', `${B}/value_stores/search`, search({ limit: 0 }));
    const res = await srv.call('DELETE', `${B}/value_stores/all`, { filters: [] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ deleted: before.body.total });
  });
});
