// The spec's named endpoints and every error text of its Errors table, over a real socket.
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, type TestServer } from '../helpers/server';
import { B, CM, TS_RE, UUID_RE, createByName, idFilter, uniq, uuid } from './gen';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(async () => {
  await srv?.stop();
});

const UNKNOWN = '6f1c1b8e-2f0f-4a44-9a39-000000000000';
const err = (status: number, error: string) => ({ error, error_code: status });
const ids = (list: any[]) => list.map((x) => x.id).sort();
const sorted = (list: string[]) => [...list].sort();

async function total(resource: string): Promise<number> {
  const res = await srv.call('POST', `${B}/${resource}/search`, search({ limit: 0 }));
  expect(res.status, res.text).toBe(200);
  return res.body.total;
}

// ------------------------------------------------------------------ input_sources

describe('input_sources', () => {
  let src: any;
  let agent: any;
  let asset: any;

  beforeAll(async () => {
    agent = await createByName(srv, 'agents');
    asset = await createByName(srv, 'service_assets');
    const res = await srv.call('POST', `${B}/input_sources/create`, {
      trace_id: uuid(),
      name: 'syslog-udp',
      source_type: 'syslog',
      vendor: 'rsyslog',
      display_name: 'Syslog',
      port: 5140,
      is_active: true,
      check_min: true,
      check_max: false,
      no_raw: false,
      check_min_value: 1,
      check_max_value: 100,
      input_type: 'raw-json',
      pipelines: [{ name: 'p1' }],
      _relations: { agents: [agent.id], service_assets: [asset.id] },
    });
    expect(res.status, res.text).toBe(201);
    src = res.body;
  });

  it('GET /input_sources/ without an id answers 400 `id is empty`', async () => {
    for (const p of [`${B}/input_sources/`, `${B}/input_sources`]) {
      const res = await srv.call('GET', p);
      expect(res.status, p).toBe(400);
      expect(res.body, p).toEqual(err(400, 'id is empty'));
    }
  });

  it('GET of an unknown source answers 404 `not found`', async () => {
    const res = await srv.call('GET', `${B}/input_sources/${UNKNOWN}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(err(404, 'not found'));
  });

  it('relations absent: every link is loaded', async () => {
    const res = await srv.call('GET', `${B}/input_sources/${src.id}`);
    expect(res.status, res.text).toBe(200);
    expect(ids(res.body.agents)).toEqual([agent.id]);
    expect(ids(res.body.service_assets)).toEqual([asset.id]);
    expect(res.body.agents[0].name).toBe(agent.name);
    expect(res.body.service_assets[0].name).toBe(asset.name);
    expect(res.body.name).toBe('syslog-udp');
    expect(res.body.input_type).toBe('raw-json');
    expect(res.body.pipelines).toEqual([{ name: 'p1' }]);
    expect(res.body.port).toBe(5140);
  });

  it('relations present and empty: no link is loaded', async () => {
    const res = await srv.call('GET', `${B}/input_sources/${src.id}?relations=`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).not.toHaveProperty('agents');
    expect(res.body).not.toHaveProperty('service_assets');
    expect(res.body.id).toBe(src.id);
  });

  it('relations with values: those links are filled', async () => {
    let res = await srv.call('GET', `${B}/input_sources/${src.id}?relations=agents`);
    expect(res.status, res.text).toBe(200);
    expect(ids(res.body.agents)).toEqual([agent.id]);
    expect(res.body).not.toHaveProperty('service_assets');
    res = await srv.call('GET', `${B}/input_sources/${src.id}?relations=service_assets`);
    expect(ids(res.body.service_assets)).toEqual([asset.id]);
    expect(res.body).not.toHaveProperty('agents');
    for (const q of ['relations=agents,service_assets', 'relations=agents&relations=service_assets']) {
      res = await srv.call('GET', `${B}/input_sources/${src.id}?${q}`);
      expect(res.status, q).toBe(200);
      expect(ids(res.body.agents), q).toEqual([agent.id]);
      expect(ids(res.body.service_assets), q).toEqual([asset.id]);
    }
  });

  it('create requires trace_id (contract: vendor fact)', async () => {
    const before = await total('input_sources');
    const res = await srv.call('POST', `${B}/input_sources/create`, { name: 'без trace_id', port: 5141 });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error_code).toBe(400);
    expect(res.body.error).toContain('trace_id');
    expect(await total('input_sources')).toBe(before);
  });

  it('create takes a port of exactly four digits (contract: vendor fact)', async () => {
    const before = await total('input_sources');
    for (const port of [80, 514, 65000, 10000]) {
      const res = await srv.call('POST', `${B}/input_sources/create`, { trace_id: uuid(), name: `порт-${port}`, port });
      expect(res.status, `port ${port}: ${res.text}`).toBe(400);
      expect(res.body.error_code).toBe(400);
      expect(res.body.error).toContain('port');
    }
    expect(await total('input_sources')).toBe(before);
    for (const port of [1000, 5140, 9999]) {
      const res = await srv.call('POST', `${B}/input_sources/create`, { trace_id: uuid(), name: `порт-${port}`, port });
      expect(res.status, `port ${port}: ${res.text}`).toBe(201);
      expect(res.body.port).toBe(port);
    }
  });

  it('search answers items and total', async () => {
    await createByName(srv, 'input_sources', { name: 'второй источник' });
    const res = await srv.call('POST', `${B}/input_sources/search`, search({ filters: [{ field: 'name', filter_type: 'equal', value: 'syslog-udp' }] }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.items[0].id).toBe(src.id);
    const all = await srv.call('POST', `${B}/input_sources/search`, search({ limit: 1 }));
    expect(all.body.items).toHaveLength(1);
    // The total of every source, not of the page: as many as the table holds (these two and any other test's).
    expect(all.body.total).toBe(srv.store.get1<{ n: number }>('SELECT COUNT(*) AS n FROM input_sources')!.n);
    expect(all.body.total).toBeGreaterThan(1);
  });
});

// ------------------------------------------------------------------ engine_go_rules search with reload update

describe('engine_go_rules search with reload update', () => {
  for (const path of ['search', 'search_with_update_reload']) {
    it(`/engine_go_rules/${path}: answers the rules as found, then their reload is false; rules not returned keep reload`, async () => {
      const prefix = `reload-${uniq()}`;
      const rs = [];
      for (const n of ['a', 'b', 'c']) rs.push(await createByName(srv, 'engine_go_rules', { name: `${prefix}-${n}`, reload: true }));
      const filteredOut = await createByName(srv, 'engine_go_rules', { name: `other-${uniq()}`, reload: true });
      for (const r of [...rs, filteredOut]) expect(r.reload).toBe(true);

      const req = search({
        filters: [{ field: 'name', filter_type: 'substr', value: prefix }],
        ordering: [{ field: 'name', direction: 'asc' }],
        limit: 2,
      });
      const res = await srv.call('POST', `${B}/engine_go_rules/${path}`, req);
      expect(res.status, res.text).toBe(200);
      expect(res.body.total).toBe(3);
      expect(res.body.items.map((x: any) => x.name)).toEqual([`${prefix}-a`, `${prefix}-b`]);
      // answered as found
      for (const it of res.body.items) expect(it.reload).toBe(true);

      const reloadOf = async (id: string) => (await srv.call('GET', `${B}/engine_go_rules/${id}?relations=`)).body.reload;
      expect(await reloadOf(rs[0]!.id)).toBe(false);
      expect(await reloadOf(rs[1]!.id)).toBe(false);
      expect(await reloadOf(rs[2]!.id)).toBe(true); // beyond the limit
      expect(await reloadOf(filteredOut.id)).toBe(true); // filtered out

      const again = await srv.call('POST', `${B}/engine_go_rules/${path}`, req);
      for (const it of again.body.items) expect(it.reload).toBe(false);
    });
  }

  it('an update of a rule sets reload (the rule must be reloaded after an update); the reload search clears it', async () => {
    const r = await createByName(srv, 'engine_go_rules', { name: `обновляемое-${uniq()}`, reload: false });
    expect(r.reload).toBe(false);
    const res = await srv.call('PUT', `${B}/engine_go_rules/update`, { id: r.id, lua: 'return true', description: 'новое описание' });
    expect(res.status, res.text).toBe(200);
    expect((await srv.call('GET', `${B}/engine_go_rules/${r.id}?relations=`)).body.reload).toBe(true);
    await srv.call('POST', `${B}/engine_go_rules/search_with_update_reload`, search({ filters: [idFilter([r.id])] }));
    expect((await srv.call('GET', `${B}/engine_go_rules/${r.id}?relations=`)).body.reload).toBe(false);
  });

  it('the logmule_go_rules alias of the reload search clears reload too', async () => {
    const r = await createByName(srv, 'engine_go_rules', { name: `псевдоним-${uniq()}`, reload: true });
    const res = await srv.call('POST', `${B}/logmule_go_rules/search_with_update_reload`, search({ filters: [idFilter([r.id])] }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((x: any) => [x.id, x.reload])).toEqual([[r.id, true]]);
    expect((await srv.call('GET', `${B}/engine_go_rules/${r.id}?relations=`)).body.reload).toBe(false);
  });

  it('a malformed search request answers 400', async () => {
    const res = await srv.call('POST', `${B}/engine_go_rules/search`, { limit: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
  });
});

// ------------------------------------------------------------------ rules (software compliance)

describe('rules create and update', () => {
  const rule = (over: Record<string, unknown> = {}) => ({ trace_id: uuid(), name: `правило-${uniq()}`, query: 'nginx & !apache', ...over });

  it('create answers 201 with the rule; rule_sets linked through _relations', async () => {
    const rs = await createByName(srv, 'rule_sets');
    const body = rule({ blacklist_entry: true, _relations: { rule_sets: [rs.id] } });
    const res = await srv.call('POST', `${B}/rules/create`, body);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: body.name, query: body.query, blacklist_entry: true, trace_id: body.trace_id });
    expect(res.body.id).toMatch(UUID_RE);
    expect(res.body.created_at).toMatch(TS_RE);
    const got = await srv.call('GET', `${B}/rules/${res.body.id}?relations=rule_sets`);
    expect(ids(got.body.rule_sets)).toEqual([rs.id]);
    expect(got.body.rule_sets[0]).toMatchObject({ id: rs.id, name: rs.name, create_service_asset_findings: rs.create_service_asset_findings });
  });

  it('`invalid query` for queries that fail tsquery validation; nothing stored', async () => {
    const before = await total('rules');
    for (const query of ['a & & b', '(a | b', 'a )', 'a &', '!', "'unterminated", 'a <x> b', 'a:Z', '& a', "''", 'a <16385> b', 'a\\']) {
      const res = await srv.call('POST', `${B}/rules/create`, rule({ query }));
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual(err(400, 'invalid query'));
    }
    expect(await total('rules')).toBe(before);
  });

  it('queries PostgreSQL accepts with a notice (no word: empty, blank, punctuation only) are accepted; they match nothing', async () => {
    for (const query of ['', '   ', "' '", '-', 'a:']) {
      const res = await srv.call('POST', `${B}/rules/create`, rule({ query }));
      expect(res.status, `${JSON.stringify(query)}: ${res.text}`).toBe(201);
      expect(res.body.query).toBe(query);
    }
  });

  it('valid tsqueries are accepted', async () => {
    for (const query of ['nginx', 'a & b | !c', "'apache httpd' & 2.4:*", 'a <-> b', 'a <2> (b | c)', 'openssl:AB']) {
      const res = await srv.call('POST', `${B}/rules/create`, rule({ query }));
      expect(res.status, `${query}: ${res.text}`).toBe(201);
      expect(res.body.query).toBe(query);
    }
  });

  it('`name should not be empty` for a missing, empty or blank name; nothing stored', async () => {
    const before = await total('rules');
    const { name: _n, ...noName } = rule();
    for (const body of [noName, rule({ name: '' }), rule({ name: '   ' })]) {
      const res = await srv.call('POST', `${B}/rules/create`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(err(400, 'name should not be empty'));
    }
    expect(await total('rules')).toBe(before);
  });

  it('a missing trace_id or query, or a wrong type, is 400', async () => {
    const before = await total('rules');
    const { trace_id: _t, ...noTrace } = rule();
    const { query: _q, ...noQuery } = rule();
    for (const body of [noTrace, noQuery, rule({ blacklist_entry: 'yes' }), rule({ name: 5 }), rule({ query: 7 })]) {
      const res = await srv.call('POST', `${B}/rules/create`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code).toBe(400);
    }
    expect(await total('rules')).toBe(before);
  });

  it('`incorrect relation identifiers for rule_sets` for a non-uuid and an unknown uuid; nothing stored', async () => {
    const before = await total('rules');
    const rs = await createByName(srv, 'rule_sets');
    for (const list of [['bad'], [UNKNOWN], [rs.id, UNKNOWN], [rs.id, 'bad']]) {
      const res = await srv.call('POST', `${B}/rules/create`, rule({ _relations: { rule_sets: list } }));
      expect(res.status, JSON.stringify(list)).toBe(400);
      expect(res.body).toEqual(err(400, 'incorrect relation identifiers for rule_sets'));
    }
    expect(await total('rules')).toBe(before);
  });

  it('`exceeded maximum length for a value` for a 251-character name; 250 is accepted', async () => {
    const before = await total('rules');
    const long = `${uniq()}-`.padEnd(251, 'я');
    const res = await srv.call('POST', `${B}/rules/create`, rule({ name: long }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(err(400, 'exceeded maximum length for a value'));
    expect(await total('rules')).toBe(before);
    const ok = await srv.call('POST', `${B}/rules/create`, rule({ name: long.slice(0, 250) }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.name).toHaveLength(250);
  });

  it('409 `name_already_used` with extra.fields [name] on create', async () => {
    const first = await srv.call('POST', `${B}/rules/create`, rule());
    expect(first.status).toBe(201);
    const before = await total('rules');
    const res = await srv.call('POST', `${B}/rules/create`, rule({ name: first.body.name }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'name_already_used', error_code: 409, extra: { fields: ['name'] } });
    expect(await total('rules')).toBe(before);
  });

  describe('update', () => {
    let a: any;
    let b: any;
    let rs1: any;
    let rs2: any;

    beforeAll(async () => {
      rs1 = await createByName(srv, 'rule_sets');
      rs2 = await createByName(srv, 'rule_sets');
      a = (await srv.call('POST', `${B}/rules/create`, rule({ _relations: { rule_sets: [rs1.id] } }))).body;
      b = (await srv.call('POST', `${B}/rules/create`, rule())).body;
    });

    const upd = (over: Record<string, unknown> = {}) => ({ id: a.id, trace_id: uuid(), name: a.name, query: a.query, ...over });
    const current = async () => (await srv.call('GET', `${B}/rules/${a.id}?relations=rule_sets`)).body;

    it('PUT /rules/update answers 200 with the rule; rule_sets is null in the answer', async () => {
      const res = await srv.call('PUT', `${B}/rules/update`, upd({ query: 'openssl & !libressl', blacklist_entry: true }));
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ id: a.id, name: a.name, query: 'openssl & !libressl', blacklist_entry: true });
      expect(res.body.rule_sets).toBeNull();
      const now = await current();
      expect(now.query).toBe('openssl & !libressl');
      expect(ids(now.rule_sets)).toEqual([rs1.id]); // _relations absent: links unchanged
    });

    it('POST /rules/update works as well', async () => {
      const res = await srv.call('POST', `${B}/rules/update`, upd({ name: `${a.name}-2` }));
      expect(res.status, res.text).toBe(200);
      expect(res.body.name).toBe(`${a.name}-2`);
      expect(res.body.rule_sets).toBeNull();
      a.name = `${a.name}-2`;
    });

    it('_relations.rule_sets sets the links; [] removes them; the answer still has rule_sets null', async () => {
      let res = await srv.call('PUT', `${B}/rules/update`, upd({ _relations: { rule_sets: [rs1.id, rs2.id] } }));
      expect(res.status, res.text).toBe(200);
      expect(res.body.rule_sets).toBeNull();
      expect(ids((await current()).rule_sets)).toEqual(sorted([rs1.id, rs2.id]));
      res = await srv.call('PUT', `${B}/rules/update`, upd({ _relations: { rule_sets: [rs2.id] } }));
      expect(ids((await current()).rule_sets)).toEqual([rs2.id]);
      res = await srv.call('PUT', `${B}/rules/update`, upd({ _relations: { rule_sets: [] } }));
      expect(res.status).toBe(200);
      expect((await current()).rule_sets).toEqual([]);
      res = await srv.call('PUT', `${B}/rules/update`, upd({ _relations: { rule_sets: [rs1.id] } }));
      expect(ids((await current()).rule_sets)).toEqual([rs1.id]);
    });

    it('related entities inside the body are ignored', async () => {
      const res = await srv.call('PUT', `${B}/rules/update`, upd({ rule_sets: [{ id: rs2.id, name: 'подмена' }] }));
      expect(res.status, res.text).toBe(200);
      expect(res.body.rule_sets).toBeNull();
      const now = await current();
      expect(ids(now.rule_sets)).toEqual([rs1.id]);
      expect((await srv.call('GET', `${B}/rule_sets/${rs2.id}?relations=`)).body.name).toBe(rs2.name);
    });

    it('400 texts on update, and nothing changed after any of them', async () => {
      const before = await current();
      const cases: [Record<string, unknown>, string][] = [
        [upd({ query: 'a & & b' }), 'invalid query'],
        [upd({ name: '' }), 'name should not be empty'],
        [upd({ name: undefined }), 'name should not be empty'],
        [upd({ name: 'x'.repeat(251) }), 'exceeded maximum length for a value'],
        [upd({ _relations: { rule_sets: ['bad'] } }), 'incorrect relation identifiers for rule_sets'],
        [upd({ _relations: { rule_sets: [UNKNOWN] } }), 'incorrect relation identifiers for rule_sets'],
        [upd({ id: undefined }), 'missing model id'],
        [upd({ id: '' }), 'missing model id'],
        [upd({ id: 'zz' }), 'invalid model id: incorrect uuid'],
        [upd({ id: `${a.id}x` }), 'invalid model id: incorrect uuid'],
        [upd({ id: 42 }), 'invalid model id: incorrect uuid'],
      ];
      for (const [body, text] of cases) {
        const res = await srv.call('PUT', `${B}/rules/update`, { ...body, blacklist_entry: !before.blacklist_entry });
        expect(res.status, text).toBe(400);
        expect(res.body, JSON.stringify(body)).toEqual(err(400, text));
      }
      const after = await current();
      expect(after).toEqual(before);
    });

    it('a missing trace_id or query on update answers 400', async () => {
      for (const body of [upd({ trace_id: undefined }), upd({ query: undefined })]) {
        const res = await srv.call('PUT', `${B}/rules/update`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error_code).toBe(400);
      }
    });

    it('409 `name_already_used` when renaming onto another rule', async () => {
      const res = await srv.call('PUT', `${B}/rules/update`, upd({ name: b.name }));
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: 'name_already_used', error_code: 409, extra: { fields: ['name'] } });
      expect((await current()).name).toBe(a.name);
    });

    it('404 `not found` for an unknown id', async () => {
      const res = await srv.call('PUT', `${B}/rules/update`, upd({ id: UNKNOWN, name: `n-${uniq()}` }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(err(404, 'not found'));
    });
  });
});

// ------------------------------------------------------------------ service_assets update

describe('service_assets update', () => {
  let asset: any;
  const upd = (over: Record<string, unknown> = {}) => ({
    trace_id: uuid(),
    id: asset.id,
    type: asset.type,
    name: asset.name,
    location: asset.location ?? 'ЦОД-1',
    ...over,
  });

  beforeAll(async () => {
    asset = await createByName(srv, 'service_assets', { name: `актив-${uniq()}`, type: 'Host', location: 'ЦОД-1', scan_id: null });
  });

  for (const f of ['trace_id', 'id', 'type', 'name', 'location']) {
    it(`a missing ${f} answers 400 naming it`, async () => {
      const body: Record<string, unknown> = upd({ description: 'не должно сохраниться' });
      delete body[f];
      const res = await srv.call('PUT', `${B}/service_assets/update`, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error_code).toBe(400);
      expect(res.body.error).toContain(f);
      expect((await srv.call('GET', `${B}/service_assets/${asset.id}?relations=`)).body.description).not.toBe('не должно сохраниться');
    });
  }

  for (const f of ['value', 'network_exposure']) {
    it(`${f} outside 1..5 or not an integer answers 400; 1 and 5 are accepted`, async () => {
      for (const v of [0, 6, -1, 2.5, '3']) {
        const res = await srv.call('PUT', `${B}/service_assets/update`, upd({ [f]: v }));
        expect(res.status, `${f}=${v}`).toBe(400);
        expect(res.body.error_code).toBe(400);
        expect(res.body.error, `${f}=${v}`).toContain(f);
      }
      for (const v of [1, 5]) {
        const res = await srv.call('PUT', `${B}/service_assets/update`, upd({ [f]: v }));
        expect(res.status, res.text).toBe(200);
        expect(res.body[f]).toBe(v);
      }
    });
  }

  it('404 `not found` for an unknown id (PUT and POST)', async () => {
    for (const m of ['PUT', 'POST']) {
      const res = await srv.call(m, `${B}/service_assets/update`, upd({ id: UNKNOWN }));
      expect(res.status, m).toBe(404);
      expect(res.body).toEqual(err(404, 'not found'));
    }
  });

  it('a non-uuid id is 400', async () => {
    const res = await srv.call('PUT', `${B}/service_assets/update`, upd({ id: 'abc' }));
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
  });

  it('the answer carries the related lists, _relations and the computed fields, with correct values', async () => {
    const rg = await createByName(srv, 'responsible_groups', { name: `SOC-${uniq()}` });
    const group = await createByName(srv, 'service_asset_groups', { name: `Группа-${uniq()}` });
    const nis = [
      await createByName(srv, 'network_interfaces', { ip: '10.1.0.1', mac: 'aa:bb:cc:00:00:01', os: 'Linux' }),
      await createByName(srv, 'network_interfaces', { ip: '10.1.0.2', mac: null, os: 'Linux' }),
      await createByName(srv, 'network_interfaces', { ip: '10.1.0.3', mac: 'aa:bb:cc:00:00:03', os: 'Windows' }),
    ];
    const hw = await createByName(srv, 'hardware_informations', { name: 'Dell R740' });
    const msg = await createByName(srv, 'messages', { subject: 'Тема' });
    const result = await createByName(srv, 'engine_go_results');
    const soft = await createByName(srv, 'software', { name: 'nginx', version: '1.24' });
    const vuln = await createByName(srv, 'vulnerabilities');
    const hosts = [
      await createByName(srv, 'vulnerability_hosts', { scan_end: '2024-05-01T00:00:00Z', authenticated: true, authentication_info: { user: 'root' } }),
      await createByName(srv, 'vulnerability_hosts', { scan_end: '2024-06-01T10:00:00.5Z', authenticated: false, authentication_info: { method: 'none' } }),
    ];
    const incidents = [];
    for (const [status, risklevel] of [
      ['new', 5],
      ['working_customer', 6.2],
      ['feedback_required', 3],
      ['closed', 9.5],
      ['invalid', 9],
      ['risk_accepted', 8],
    ] as const) {
      incidents.push(await createByName(srv, 'service_asset_findings', { status, risklevel, service_asset_id: asset.id }));
    }

    const newName = `актив-переименован-${uniq()}`;
    const res = await srv.call(
      'PUT',
      `${B}/service_assets/update`,
      upd({
        name: newName,
        location: 'ЦОД-2',
        value: 2,
        network_exposure: 3,
        responsible_group_id: rg.id,
        description: 'описание',
        _relations: {
          hardware_informations: [hw.id],
          engine_go_results: [result.id],
          messages: [msg.id],
          network_interfaces: nis.map((n) => n.id),
          service_asset_findings: incidents.map((i) => i.id),
          service_asset_groups: [group.id],
          software: [soft.id],
          vulnerabilities: [vuln.id],
          vulnerability_hosts: hosts.map((h) => h.id),
        },
      }),
    );
    expect(res.status, res.text).toBe(200);
    const a = res.body;
    expect(a).toMatchObject({ id: asset.id, name: newName, location: 'ЦОД-2', value: 2, network_exposure: 3, description: 'описание', responsible_group_id: rg.id });

    // related lists
    expect(ids(a.hardware_informations)).toEqual([hw.id]);
    expect(a.hardware_informations[0]).toMatchObject({ name: 'Dell R740', hardware_type: hw.hardware_type, manufacturer: hw.manufacturer, serial_number: hw.serial_number, additional_info: hw.additional_info, is_old: hw.is_old });
    expect(ids(a.engine_go_results)).toEqual([result.id]);
    expect(ids(a.messages)).toEqual([msg.id]);
    expect(ids(a.network_interfaces)).toEqual(ids(nis));
    expect(ids(a.service_asset_findings)).toEqual(ids(incidents));
    expect(ids(a.service_asset_groups)).toEqual([group.id]);
    expect(ids(a.software)).toEqual([soft.id]);
    expect(a.software[0]).toMatchObject({ name: 'nginx', version: '1.24' });
    expect(ids(a.vulnerabilities)).toEqual([vuln.id]);
    expect(ids(a.vulnerability_hosts)).toEqual(ids(hosts));
    expect(a.responsible_group).toMatchObject({ id: rg.id, name: rg.name });
    for (const k of ['parent_group', 'realm_id', 'email', 'phone_number', 'leader_id', 'accept_risk', 'visible_scan_schedules', 'stop_scans', 'edited_by', 'user_ids']) {
      expect(a.responsible_group, k).toHaveProperty(k);
    }
    for (const k of ['network_ranges', 'domain', 'itsm_synced', 'regex', 'subject_id', 'object_id', 'is_kii', 'is_fincert', 'responsible_person', 'technical_specialist', 'system_id', 'responsible_group_id', 'edited_by']) {
      expect(a.service_asset_groups[0], k).toHaveProperty(k);
    }

    // network interfaces carry the asset's own fields
    for (const n of a.network_interfaces) {
      expect(n).toMatchObject({
        service_asset_id: asset.id,
        service_asset_name: newName,
        service_asset_location: 'ЦОД-2',
        service_asset_value: 2,
        service_asset_network_exposure: 3,
        service_asset_group_names: [group.name],
        has_service_asset: true,
      });
      for (const k of ['id', 'name', 'ip', 'mac', 'fqdn', 'os', 'edited_by']) expect(n, k).toHaveProperty(k);
    }

    // _relations
    expect(sorted(a._relations.network_interfaces)).toEqual(ids(nis));
    expect(sorted(a._relations.service_asset_findings)).toEqual(ids(incidents));
    expect(a._relations.service_asset_groups).toEqual([group.id]);
    expect(a._relations.software).toEqual([soft.id]);
    expect(a._relations.hardware_informations).toEqual([hw.id]);
    expect(a._relations.messages).toEqual([msg.id]);
    expect(a._relations.engine_go_results).toEqual([result.id]);
    expect(a._relations.vulnerabilities).toEqual([vuln.id]);
    expect(sorted(a._relations.vulnerability_hosts)).toEqual(ids(hosts));

    // computed fields
    expect(a.is_local).toBe(true);
    expect(a.risklevel).toBe(6.2); // highest open incident
    expect(a.risk).toBe('medium');
    expect(sorted(a.mac_ip)).toEqual(sorted(['aa:bb:cc:00:00:01 10.1.0.1', '10.1.0.2', 'aa:bb:cc:00:00:03 10.1.0.3']));
    expect(sorted(a.os_list)).toEqual(['Linux', 'Windows']);
    expect(a.responsible_group_name).toBe(rg.name);
    expect(a.closed_count).toBe(2);
    expect(a.risk_accepted_count).toBe(1);
    expect(a.all_open_count).toBe(3);
    expect(a.last_scan).toBe('2024-06-01T10:00:00.500000Z');
    expect(a.authenticated).toBe(false); // from the latest scan
    expect(a.authentication_info).toEqual({ method: 'none' });
    expect(sorted(a.network_interface_ids)).toEqual(ids(nis));
  });

  it('POST /service_assets/update works too; is_local follows scan_id; partial: other fields kept', async () => {
    const before = (await srv.call('GET', `${B}/service_assets/${asset.id}?relations=`)).body;
    const res = await srv.call('POST', `${B}/service_assets/update`, upd({ name: before.name, location: before.location, scan_id: 'scan-42' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.scan_id).toBe('scan-42');
    expect(res.body.is_local).toBe(false);
    for (const k of ['description', 'value', 'network_exposure', 'responsible_group_id', 'coordinates', 'active']) expect(res.body[k], k).toEqual(before[k]);
  });

  it('_relations [] detaches, absent keeps', async () => {
    let res = await srv.call('PUT', `${B}/service_assets/update`, upd({ name: (await srv.call('GET', `${B}/service_assets/${asset.id}?relations=`)).body.name, location: 'ЦОД-2', _relations: { software: [] } }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.software).toEqual([]);
    expect(res.body.network_interfaces).toHaveLength(3);
    res = await srv.call('PUT', `${B}/service_assets/update`, upd({ name: res.body.name, location: 'ЦОД-2', _relations: { software: ['not-a-uuid'] } }));
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
  });
});

// ------------------------------------------------------------------ occurrences

describe('occurrences/create', () => {
  let base: Record<string, unknown>;
  let incident: any;
  let change: any;

  beforeAll(async () => {
    incident = await createByName(srv, 'service_asset_findings', { title: 'Инцидент', status: 'new', risklevel: 4 });
    change = await createByName(srv, 'service_asset_finding_status_changes', { service_asset_finding_id: incident.id, status: 'assigned_customer' });
    base = {
      event_type: 'engine_go_result',
      ip: '10.2.0.1',
      mac: 'aa:bb:cc:dd:ee:ff',
      fqdn: 'host.example.local',
      port: 443,
      start_occurrence: '2024-01-01T00:00:00Z',
      end_occurrence: '2024-01-02T00:00:00Z',
      service_asset_finding_status_change_id: change.id,
      service_asset_finding_id: incident.id,
      incident_identifier: 'INC-1',
      fincert_sync_status: 1,
      fincert_id: 'F-1',
      sopka_sync_status: 2,
      sopka_id: 'S-1',
      fincert_sync_result: 'ok',
      sopka_sync_result: 'ok',
    };
  });

  it('success: 201 with the occurrence and its related data', async () => {
    const res = await srv.call('POST', `${B}/occurrences/create`, base);
    expect(res.status, res.text).toBe(201);
    const o = res.body;
    expect(o).toMatchObject(base);
    expect(o.id).toMatch(UUID_RE);
    expect(o.created_at).toMatch(TS_RE);
    expect(o.service_asset_finding).toMatchObject({ id: incident.id, title: 'Инцидент' });
    expect(o.service_asset_finding_status_change).toMatchObject({ id: change.id, status: 'assigned_customer' });
    expect(o.vulnerabilities).toEqual([]);
    expect(o).toHaveProperty('engine_go_result');
    expect(o.engine_go_result).toBeNull();
    expect(o._relations).toEqual({ engine_go_results: [], vulnerabilities: [] });
    const got = await srv.call('GET', `${B}/occurrences/${o.id}?relations=`);
    expect(got.status).toBe(200);
    expect(got.body.ip).toBe('10.2.0.1');
  });

  it('every event_type of the spec is accepted', async () => {
    for (const event_type of ['manual_source', 'engine_go_result', 'software_compliance_source', 'vulnerability', 'watchdog_result']) {
      const res = await srv.call('POST', `${B}/occurrences/create`, { ...base, event_type });
      expect(res.status, event_type).toBe(201);
    }
  });

  it('every field is required: dropping each one answers 400 naming it; nothing stored', async () => {
    const before = await total('occurrences');
    for (const f of Object.keys(base)) {
      const body = { ...base };
      delete body[f];
      const res = await srv.call('POST', `${B}/occurrences/create`, body);
      expect(res.status, f).toBe(400);
      expect(res.body.error_code).toBe(400);
      expect(res.body.error, f).toContain(f);
    }
    expect(await total('occurrences')).toBe(before);
  });

  it('wrong types answer 400; nothing stored', async () => {
    const before = await total('occurrences');
    const bad: Record<string, unknown>[] = [
      { port: '443' },
      { port: 1.5 },
      { event_type: 'bogus' },
      { ip: 5 },
      { fincert_sync_status: 'one' },
      { sopka_sync_status: true },
      { service_asset_finding_id: 'not-a-uuid' },
      { service_asset_finding_status_change_id: 42 },
      { incident_identifier: null },
      { mac: ['x'] },
    ];
    for (const over of bad) {
      const res = await srv.call('POST', `${B}/occurrences/create`, { ...base, ...over });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.error_code).toBe(400);
    }
    expect(await total('occurrences')).toBe(before);
  });

  it('an unknown referenced incident answers 400', async () => {
    const res = await srv.call('POST', `${B}/occurrences/create`, { ...base, service_asset_finding_id: UNKNOWN });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(400);
  });
});

// ------------------------------------------------------------------ custom_field_values

describe('custom_field_values update', () => {
  let cf: any;
  let cf2: any;
  let incident: any;
  let value: any;

  beforeAll(async () => {
    cf = await createByName(srv, 'custom_fields', { title: 'Поле', field_type: 'string' });
    cf2 = await createByName(srv, 'custom_fields', { title: 'Поле 2', field_type: 'json' });
    incident = await createByName(srv, 'service_asset_findings', { title: 'Инцидент CFV' });
    value = await createByName(srv, 'custom_field_values', { custom_field_id: cf.id, service_asset_finding_id: incident.id, string_value: 'было' });
  });

  const upd = (over: Record<string, unknown> = {}) => ({
    id: value.id,
    created_at: value.created_at,
    updated_at: value.updated_at,
    custom_field_id: cf.id,
    service_asset_finding_id: incident.id,
    ...over,
  });

  it('answers 200 with the value; related entities in the body are ignored and null in the answer', async () => {
    const res = await srv.call(
      'PUT',
      `${B}/custom_field_values/update`,
      upd({
        string_value: 'стало',
        integer_value: 7,
        float_value: 1.25,
        date_value: '2024-03-01',
        json_value: { a: [1, 2] },
        boolean_value: true,
        custom_field: { id: cf.id, field_key: 'hacked', title: 'Подмена', field_type: 'json', order_direction: 9 },
        service_asset_finding: { id: incident.id, title: 'Подмена' },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: value.id,
      custom_field_id: cf.id,
      service_asset_finding_id: incident.id,
      string_value: 'стало',
      integer_value: 7,
      float_value: 1.25,
      date_value: '2024-03-01',
      json_value: { a: [1, 2] },
      boolean_value: true,
    });
    expect(res.body).toHaveProperty('custom_field', null);
    expect(res.body).toHaveProperty('service_asset_finding', null);
    expect(res.body.created_at).toBe(value.created_at);
    expect(res.body.updated_at > value.updated_at).toBe(true);
    // the related entities themselves are untouched
    const field = await srv.call('GET', `${B}/custom_fields/${cf.id}?relations=`);
    expect(field.body).toMatchObject({ field_key: cf.field_key, title: 'Поле', field_type: 'string', order_direction: cf.order_direction });
    expect((await srv.call('GET', `${B}/service_asset_findings/${incident.id}?relations=`)).body.title).toBe('Инцидент CFV');
    // and stored relations still resolve normally
    const got = await srv.call('GET', `${B}/custom_field_values/${value.id}`);
    expect(got.body.custom_field).toMatchObject({ id: cf.id, field_key: cf.field_key, title: 'Поле', field_type: 'string' });
    expect(got.body.service_asset_finding).toMatchObject({ id: incident.id });
  });

  it('created_at and updated_at sent in the body are not stored: the server keeps its own', async () => {
    const res = await srv.call('PUT', `${B}/custom_field_values/update`, upd({ created_at: '2000-01-01T00:00:00Z', updated_at: '2000-01-01T00:00:00Z', boolean_value: false }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.created_at).toBe(value.created_at);
    expect(res.body.updated_at > value.updated_at).toBe(true);
    expect(res.body.updated_at).toMatch(TS_RE);
  });

  it('partial: fields not sent keep their values; custom_field_id can be changed', async () => {
    const res = await srv.call('PUT', `${B}/custom_field_values/update`, upd({ custom_field_id: cf2.id }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.custom_field_id).toBe(cf2.id);
    expect(res.body.string_value).toBe('стало');
    expect(res.body.integer_value).toBe(7);
    const back = await srv.call('PUT', `${B}/custom_field_values/update`, upd());
    expect(back.body.custom_field_id).toBe(cf.id);
  });

  it('json_value: the declared string form is accepted as well as an object', async () => {
    const asObject = await srv.call('PUT', `${B}/custom_field_values/update`, upd({ json_value: { k: 'v' } }));
    expect(asObject.status, asObject.text).toBe(200);
    expect(asObject.body.json_value).toEqual({ k: 'v' });
    const asString = await srv.call('PUT', `${B}/custom_field_values/update`, upd({ json_value: '{"k":"строка"}' }));
    expect(asString.status, asString.text).toBe(200);
    const back = await srv.call('GET', `${B}/custom_field_values/${value.id}?relations=`);
    expect([JSON.stringify(back.body.json_value), back.body.json_value]).toContain('{"k":"строка"}');
  });

  it('404 `not found` for an unknown id', async () => {
    const res = await srv.call('PUT', `${B}/custom_field_values/update`, upd({ id: UNKNOWN, string_value: 'x' }));
    expect(res.status).toBe(404);
    expect(res.body).toEqual(err(404, 'not found'));
  });

  for (const f of ['id', 'created_at', 'updated_at', 'custom_field_id', 'service_asset_finding_id']) {
    it(`a missing ${f} answers 400 naming it; nothing changed`, async () => {
      const body: Record<string, unknown> = upd({ string_value: 'не сохранять' });
      delete body[f];
      const res = await srv.call('PUT', `${B}/custom_field_values/update`, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error_code).toBe(400);
      expect(res.body.error).toContain(f);
      expect((await srv.call('GET', `${B}/custom_field_values/${value.id}?relations=`)).body.string_value).not.toBe('не сохранять');
    });
  }

  it('wrong types answer 400', async () => {
    for (const over of [{ integer_value: 'x' }, { integer_value: 1.5 }, { float_value: 'x' }, { boolean_value: 'yes' }, { date_value: 'not a date' }, { string_value: 5 }]) {
      const res = await srv.call('PUT', `${B}/custom_field_values/update`, upd(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.error_code).toBe(400);
    }
  });
});

// ------------------------------------------------------------------ engine_go_rules_integration_actions

describe('engine_go_rules_integration_actions/create', () => {
  const P = `${B}/engine_go_rules_integration_actions/create`;
  const params = [
    { parameter_name: 'ip', parameter_value: 'event.src.ip', from_logline: true, strategy: 'first' },
    { parameter_name: 'mode', parameter_value: 'block', from_logline: false, strategy: 'last' },
  ];
  let rule: any;
  let script: any;
  const user = uuid();

  beforeAll(async () => {
    rule = await createByName(srv, 'engine_go_rules', { name: `правило-${uniq()}` });
    script = await createByName(srv, 'integration_scripts', { name: `block-ip-${uniq()}` });
  });

  it('the eight 400 texts, in the order they are checked; nothing stored', async () => {
    const before = await total('engine_go_rules_integration_actions');
    const H = { 'Pgr-User-Id': user };
    const full = { rule_id: rule.id, integration_script_id: script.id, params, state: true };
    const cases: [Record<string, string>, unknown, string][] = [
      [{}, {}, 'missing uid header'],
      [{}, { rule_id: 'x', integration_script_id: 'y' }, 'missing uid header'],
      [{ 'Pgr-User-Id': '' }, full, 'missing uid header'],
      [{ 'Pgr-User-Id': 'not-a-uuid' }, { rule_id: '' }, 'Pgr-User-Id should be uuid format'],
      [{ 'Pgr-User-Id': `${user}0` }, full, 'Pgr-User-Id should be uuid format'],
      [H, { integration_script_id: '', params, state: true }, 'empty rule_id'],
      [H, { rule_id: '', integration_script_id: 'bad', params, state: true }, 'empty rule_id'],
      [H, { rule_id: 'bad', integration_script_id: '', params, state: true }, 'rule_id should be uuid format'],
      [H, { rule_id: UNKNOWN, params, state: true }, 'empty integration_script_id'],
      [H, { rule_id: UNKNOWN, integration_script_id: '', params, state: true }, 'empty integration_script_id'],
      [H, { rule_id: UNKNOWN, integration_script_id: 'bad', params, state: true }, 'integration_script_id should be uuid format'],
      [H, { rule_id: UNKNOWN, integration_script_id: UNKNOWN, params, state: true }, 'rule not found'],
      [H, { rule_id: script.id, integration_script_id: script.id, params, state: true }, 'rule not found'],
      [H, { rule_id: rule.id, integration_script_id: UNKNOWN, params, state: true }, 'integration script not found'],
      [H, { rule_id: rule.id, integration_script_id: rule.id, params, state: true }, 'integration script not found'],
    ];
    for (const [headers, body, text] of cases) {
      const res = await srv.call('POST', P, body, headers);
      expect(res.status, `${text}: ${JSON.stringify(body)}`).toBe(400);
      expect(res.body, `${JSON.stringify(headers)} ${JSON.stringify(body)}`).toEqual(err(400, text));
    }
    expect(await total('engine_go_rules_integration_actions')).toBe(before);
  });

  it('a header in another letter case (Pgr-User-ID) is the same header', async () => {
    const res = await srv.call('POST', P, { rule_id: rule.id, integration_script_id: script.id, params, state: false }, { 'Pgr-User-ID': user });
    expect(res.status, res.text).toBe(201);
  });

  it('missing params or state, or wrong types, answer 400', async () => {
    const H = { 'Pgr-User-Id': user };
    for (const body of [
      { rule_id: rule.id, integration_script_id: script.id, state: true },
      { rule_id: rule.id, integration_script_id: script.id, params },
      { rule_id: rule.id, integration_script_id: script.id, params, state: 'on' },
      { rule_id: rule.id, integration_script_id: script.id, params: [{ parameter_name: 'x' }], state: true },
      { rule_id: rule.id, integration_script_id: script.id, params: [{ ...params[0], strategy: 'middle' }], state: true },
    ]) {
      const res = await srv.call('POST', P, body, H);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code).toBe(400);
    }
  });

  it('answers at the logmule_go_rules_integration_actions alias as well', async () => {
    const res = await srv.call('POST', `${B}/logmule_go_rules_integration_actions/create`, { rule_id: rule.id, integration_script_id: script.id, params, state: true }, { 'Pgr-User-Id': user });
    expect(res.status, res.text).toBe(201);
    const none = await srv.call('POST', `${B}/logmule_go_rules_integration_actions/create`, { rule_id: rule.id, integration_script_id: script.id, params, state: true });
    expect(none.body).toEqual(err(400, 'missing uid header'));
  });

  it('success: 201 with the action record', async () => {
    const res = await srv.call('POST', P, { rule_id: rule.id, integration_script_id: script.id, params, state: true }, { 'Pgr-User-Id': user });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ rule_id: rule.id, integration_script_id: script.id, params, state: true });
    expect(res.body.id).toMatch(UUID_RE);
    expect(res.body.created_at).toMatch(TS_RE);
    expect(res.body.updated_at).toMatch(TS_RE);
    const got = await srv.call('GET', `${B}/engine_go_rules_integration_actions/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ rule_id: rule.id, integration_script_id: script.id, params, state: true, user_id: user });
    expect(got.body.rule.id).toBe(rule.id);
    expect(got.body.integration_script.id).toBe(script.id);
    const r = await srv.call('GET', `${B}/engine_go_rules/${rule.id}?relations=integration_actions`);
    expect(r.body.integration_actions.map((x: any) => x.id)).toContain(res.body.id);
  });
});

// ------------------------------------------------------------------ agents apply_config

describe('POST /cm/api/v2/agents/{id}/apply_config', () => {
  it('publishes pending_config: it becomes config, pending_config null, config_version + 1; 200 with an empty body', async () => {
    const pending = { inputs: [{ type: 'syslog', port: 5140 }], 'уровень': 'debug' };
    const agent = await createByName(srv, 'agents', { config: { inputs: [] }, pending_config: pending });
    const before = (await srv.call('GET', `${CM}/agents/${agent.id}?relations=`)).body;
    const res = await srv.call('POST', `${CM}/agents/${agent.id}/apply_config`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('');
    const after = await srv.call('GET', `${CM}/agents/${agent.id}?relations=`);
    expect(after.status).toBe(200);
    expect(after.body.config).toEqual(pending);
    expect(after.body.pending_config).toBeNull();
    expect(after.body.config_version).toBe(before.config_version + 1);
    expect(after.body.applied_at).toMatch(TS_RE);
    expect(after.body.name).toBe(before.name);
  });

  it('with nothing pending the applied config stays as it is', async () => {
    const agent = await createByName(srv, 'agents', { config: { a: 1 }, pending_config: null });
    const res = await srv.call('POST', `${CM}/agents/${agent.id}/apply_config`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const after = (await srv.call('GET', `${CM}/agents/${agent.id}?relations=`)).body;
    expect(after.config).toEqual({ a: 1 });
    expect(after.pending_config).toBeNull();
  });

  it('404 `not found` for an unknown agent', async () => {
    const res = await srv.call('POST', `${CM}/agents/${UNKNOWN}/apply_config`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(err(404, 'not found'));
  });

  it('400 for a non-uuid id', async () => {
    const res = await srv.call('POST', `${CM}/agents/not-a-uuid/apply_config`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(err(400, 'id should be uuid format'));
  });

  it('401 `no auth header` without credentials, and nothing is applied', async () => {
    const agent = await createByName(srv, 'agents', { pending_config: { x: 1 } });
    const res = await srv.call('POST', `${CM}/agents/${agent.id}/apply_config`, undefined, { PgrApiKey: '' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(err(401, 'no auth header'));
    const after = (await srv.call('GET', `${CM}/agents/${agent.id}?relations=`)).body;
    expect(after.pending_config).toEqual({ x: 1 });
  });
});

// ------------------------------------------------------------------ sonar services scan

describe('sonar services scan', () => {
  const paths = [`${B}/sonar/services/scan`, '/sonar/services/scan'];

  for (const p of paths) {
    it(`${p}: \`empty ips\` for a missing or empty list, \`empty IP address\` for an empty address`, async () => {
      for (const body of [{}, { ips: [] }]) {
        const res = await srv.call('POST', p, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toEqual(err(400, 'empty ips'));
      }
      for (const ips of [[''], ['127.0.0.1', ''], ['  ']]) {
        const res = await srv.call('POST', p, { ips });
        expect(res.status, JSON.stringify(ips)).toBe(400);
        expect(res.body).toEqual(err(400, 'empty IP address'));
      }
    });
  }

  for (const p of paths) {
    it(`${p}: a request with no body at all (ips not set) answers \`empty ips\``, async () => {
      const variants: Record<string, string>[] = [{}, { 'Content-Type': '' }];
      for (const headers of variants) {
        const res = await srv.call('POST', p, undefined, headers);
        expect(res.status, JSON.stringify(headers)).toBe(400);
        expect(res.body, JSON.stringify(headers)).toEqual(err(400, 'empty ips'));
      }
    });
  }

  it('ips of the wrong type answer 400', async () => {
    for (const body of [{ ips: '127.0.0.1' }, { ips: [1] }]) {
      const res = await srv.call('POST', paths[0]!, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code).toBe(400);
    }
  });

  describe('a real probe', () => {
    let scanSrv: TestServer;
    let listener: net.Server;
    let openPort = 0;
    let closedPort = 0;

    const listen = (s: net.Server) =>
      new Promise<number>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => resolve((s.address() as net.AddressInfo).port));
      });

    beforeAll(async () => {
      listener = net.createServer((sock) => sock.destroy());
      openPort = await listen(listener);
      const tmp = net.createServer();
      closedPort = await listen(tmp);
      await new Promise<void>((r) => tmp.close(() => r()));
      scanSrv = await startTestServer({ scan: { ports: [openPort, closedPort], timeoutMs: 500, budgetMs: 3000, concurrency: 8 } });
    });

    afterAll(async () => {
      await scanSrv?.stop();
      await new Promise<void>((r) => listener.close(() => r()));
    });

    it('the open port is reported as a service, the closed one is not; an invalid address gets its own error element', async () => {
      const ni = await createByName(scanSrv, 'network_interfaces', { ip: '127.0.0.1', mac: '02:00:00:00:00:01', os: 'Linux' });
      for (const p of paths) {
        const res = await scanSrv.call('POST', p, { ips: ['127.0.0.1', 'not-an-ip'] });
        expect(res.status, res.text).toBe(200);
        expect(Object.keys(res.body)).toEqual(['_']);
        expect(res.body._).toHaveLength(2);
        const [host, bad] = res.body._;
        for (const el of res.body._) {
          expect(Object.keys(el).sort()).toEqual(['error', 'error_code', 'ipv4', 'ipv6', 'mac', 'os', 'services']);
        }
        expect(host).toMatchObject({ ipv4: '127.0.0.1', ipv6: '', mac: '02:00:00:00:00:01', os: 'Linux', error_code: 0, error: '' });
        expect(host.services).toHaveLength(1);
        const s = host.services[0];
        expect(s).toMatchObject({ port: openPort, status: 'open', type: 'tcp', network_interface_id: ni.id });
        expect(s.id).toMatch(UUID_RE);
        expect(s.created_at).toMatch(TS_RE);
        expect(s.updated_at).toMatch(TS_RE);
        for (const k of ['name', 'version', 'cpe']) expect(typeof s[k], k).toBe('string');
        expect(host.services.map((x: any) => x.port)).not.toContain(closedPort);
        expect(bad.services).toEqual([]);
        expect(bad.error_code).not.toBe(0);
        expect(bad.error).not.toBe('');
        expect(bad.error).toContain('not-an-ip');
      }
    });

    it('an IPv6 loopback address is answered in ipv6', async () => {
      const res = await scanSrv.call('POST', paths[0]!, { ips: ['::1'] });
      expect(res.status, res.text).toBe(200);
      expect(res.body._).toHaveLength(1);
      expect(res.body._[0]).toMatchObject({ ipv4: '', ipv6: '::1' });
      expect(res.body._[0].services.map((x: any) => x.port)).not.toContain(closedPort);
    });
  });
});

// ------------------------------------------------------------------ the remaining error texts

describe('errors table: remaining texts', () => {
  it('404 `not found` for an unknown path', async () => {
    const res = await srv.call('GET', `${B}/no_such_resource/search`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(err(404, 'not found'));
  });

  it('500 `Internal Server Error` when storage fails, with nothing of the failure leaked', async () => {
    const broken = await startTestServer();
    try {
      broken.store.db.close();
      for (const [m, p, body] of [
        ['GET', `${B}/software_groups/${UNKNOWN}`, undefined],
        ['POST', `${B}/software_groups/search`, search()],
        ['POST', `${B}/software_groups/create`, { name: 'x' }],
      ] as const) {
        const res = await broken.call(m, p, body);
        expect(res.status, `${m} ${p}`).toBe(500);
        expect(res.body).toEqual(err(500, 'Internal Server Error'));
      }
    } finally {
      await broken.stop().catch(() => undefined);
    }
  });

  it('400 for a wrong parameter type and a missing required parameter in a search', async () => {
    const wrong = await srv.call('POST', `${B}/software_groups/search`, search({ limit: 'ten' }));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error_code).toBe(400);
    expect(wrong.body.error).toContain('limit');
    const { include_fields: _i, ...missing } = search();
    const res = await srv.call('POST', `${B}/software_groups/search`, missing);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('include_fields');
  });

  it('409 for software_groups created with an existing unique name, with extra.fields', async () => {
    const name = `группа-${uniq()}`;
    expect((await srv.call('POST', `${B}/software_groups/create`, { name })).status).toBe(201);
    const res = await srv.call('POST', `${B}/software_groups/create`, { name });
    expect(res.status).toBe(409);
    expect(res.body.error_code).toBe(409);
    expect(res.body.extra).toEqual({ fields: ['name'] });
    const s = await srv.call('POST', `${B}/software_groups/search`, search({ filters: [{ field: 'name', filter_type: 'equal', value: name }] }));
    expect(s.body.total).toBe(1);
  });

  it('software_groups: search by tree (children_all) and the filter types of the spec', async () => {
    const root = await createByName(srv, 'software_groups', { name: `корень-${uniq()}` });
    const child = await createByName(srv, 'software_groups', { name: `ребёнок-${uniq()}`, parent_id: root.id });
    const grand = await createByName(srv, 'software_groups', { name: `внук-${uniq()}`, parent_id: child.id });
    const res = await srv.call(
      'POST',
      `${B}/software_groups/search`,
      search({ filters: [{ field: 'parent', filter_type: 'related', value: [root.id], extension_params: { chidlrens_all: true, parents_all: false } }] }),
    );
    expect(res.status, res.text).toBe(200);
    expect(ids(res.body.items)).toEqual(sorted([child.id, grand.id]));
    const sub = await srv.call('POST', `${B}/software_groups/search`, search({ filters: [{ field: 'name', filter_type: 'substr', value: 'РЕБЁНОК' }] }));
    expect(ids(sub.body.items)).toContain(child.id);
    const vs = await srv.call('POST', `${B}/software_groups/search`, search({ virtual_search: { value: 'ВНУК', strict: false }, filters: [idFilter([grand.id, root.id])] }));
    expect(ids(vs.body.items)).toEqual([grand.id]);
  });
});

// ------------------------------------------------------------------ named writes through the write path

describe('named writes go through the store write path (a snapshot records them for push)', () => {
  let snap: TestServer;
  let db: Database.Database;
  const outbox = () => db.prepare('SELECT resource, record_id, op, field, before, after FROM sync_outbox ORDER BY seq').all() as Record<string, string | null>[];

  beforeAll(async () => {
    snap = await startTestServer();
    db = new Database(path.join(snap.dir, 'test.sqlite'));
    db.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    db?.close();
    await snap?.stop();
  });
  const asSnapshot = () =>
    db.prepare(`INSERT OR IGNORE INTO sync_origin (id, url, key_store, key_id, snapshot_at) VALUES (1, 'https://radar.example', '/k.json', 'origin', '2024-01-01T00:00:00.000000Z')`).run();

  it('the reload search clears reload with an outbox entry and updated_at kept', async () => {
    const r = await createByName(snap, 'engine_go_rules', { name: `снимок-${uniq()}`, reload: true });
    asSnapshot();
    db.prepare('DELETE FROM sync_outbox').run();
    const res = await snap.call('POST', `${B}/engine_go_rules/search_with_update_reload`, search({ filters: [idFilter([r.id])] }));
    expect(res.status, res.text).toBe(200);
    const got = (await snap.call('GET', `${B}/engine_go_rules/${r.id}?relations=`)).body;
    expect(got.reload).toBe(false);
    expect(got.updated_at).toBe(r.updated_at);
    expect(outbox()).toEqual([{ resource: 'engine_go_rules', record_id: r.id, op: 'update', field: 'reload', before: 'true', after: 'false' }]);
    // Read again: nothing left to clear, nothing recorded.
    await snap.call('POST', `${B}/engine_go_rules/search_with_update_reload`, search({ filters: [idFilter([r.id])] }));
    expect(outbox()).toHaveLength(1);
  });

  it('apply_config publishes through the path: one outbox entry per field changed, updated_at bumped', async () => {
    const agent = await createByName(snap, 'agents', { config: { a: 1 }, pending_config: { a: 2 } });
    asSnapshot();
    db.prepare('DELETE FROM sync_outbox').run();
    const res = await snap.call('POST', `${CM}/agents/${agent.id}/apply_config`);
    expect(res.status, res.text).toBe(200);
    const after = (await snap.call('GET', `${CM}/agents/${agent.id}?relations=`)).body;
    expect(after).toMatchObject({ config: { a: 2 }, pending_config: null, config_version: agent.config_version + 1 });
    expect(after.updated_at > agent.updated_at).toBe(true);
    expect(after.applied_at).toBe(after.updated_at);
    expect(outbox().map((e) => [e.field, JSON.parse(e.before!), JSON.parse(e.after!)])).toEqual([
      ['config', { a: 1 }, { a: 2 }],
      ['pending_config', { a: 2 }, null],
    ]);
  });

  it("an action's author is stored with its create: the outbox's create entry carries it", async () => {
    const rule = await createByName(snap, 'engine_go_rules', { name: `автор-${uniq()}` });
    const script = await createByName(snap, 'integration_scripts', { name: `script-${uniq()}` });
    asSnapshot();
    db.prepare('DELETE FROM sync_outbox').run();
    const user = uuid();
    const body = { rule_id: rule.id, integration_script_id: script.id, params: [], state: true };
    const res = await snap.call('POST', `${B}/engine_go_rules_integration_actions/create`, body, { 'Pgr-User-Id': user });
    expect(res.status, res.text).toBe(201);
    expect(res.body.user_id).toBe(user);
    const [create] = outbox();
    expect(create).toMatchObject({ resource: 'engine_go_rules_integration_actions', record_id: res.body.id, op: 'create' });
    expect(JSON.parse(create!.after!).user_id).toBe(user);
  });
});
