// Names for user uuids over a real socket: the local analyst (/console/v1/me), the database's
// people directory (/console/v1/people, also per instance through the routing port), the demo
// data's owners and groups, the public incident's user_short_name, and mass_update recording its
// author from Pgr-User-Id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_USER_ID } from '../../src-shared/schemas/people';
import { search, startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
});

afterAll(async () => {
  await srv?.stop();
});

describe('people', () => {
  it('knows the local analyst, a member of the SOC shift in the demo data', async () => {
    const me = await srv.call('GET', '/console/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(LOCAL_USER_ID);
    expect(me.body.name).toBe('Смирнов Алексей');
    expect(me.body.short_name).toBe('Смирнов А.');
    const groups = await srv.call('POST', '/cruddy/v2/responsible_groups/search', search({ limit: 100, include_fields: ['id', 'name', 'user_ids'] }));
    const mine = groups.body.items.filter((g: { user_ids: string[] }) => g.user_ids.includes(LOCAL_USER_ID));
    expect(mine.map((g: { name: string }) => g.name)).toContain('SOC — дежурная смена');
  });

  it('lists a directory that names every owner of the demo incidents; the public API answers the names', async () => {
    const people = await srv.call('GET', '/console/v1/people');
    expect(people.status).toBe(200);
    const ids = new Set(people.body.items.map((p: { id: string }) => p.id));
    expect(people.body.items.length).toBe(12);
    const owners = await srv.call('POST', '/cruddy/v2/service_asset_findings/group', { group_field: 'user_id' });
    const named = owners.body.items.filter((i: { value: string | null }) => i.value !== null);
    expect(named.length).toBeGreaterThan(2);
    for (const o of named) expect(ids.has(o.value), o.value).toBe(true);
    expect(owners.body.items.some((i: { value: string | null }) => i.value === null)).toBe(true);
    const pub = await srv.call('GET', `/data/public/api/v1/incidents?user_id=eq,${LOCAL_USER_ID}&per_page=5`);
    expect(pub.status).toBe(200);
    expect(pub.body.total).toBeGreaterThan(0);
    for (const inc of pub.body.objects) expect(inc.user_short_name).toBe('Смирнов А.');
  });

  it('adds and removes a person; bad input is a 400 with {error, error_code}, a taken id a 409', async () => {
    const added = await srv.call('POST', '/console/v1/people', { name: 'Орлова Вера Павловна', role: 'SOC L1' });
    expect(added.status).toBe(201);
    expect(added.body.short_name).toBe('Орлова В. П.');
    const again = await srv.call('POST', '/console/v1/people', { id: added.body.id, name: 'x' });
    expect(again.status).toBe(409);
    expect(again.body.error_code).toBe(409);
    const bad = await srv.call('POST', '/console/v1/people', { name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe(400);
    expect((await srv.call('DELETE', `/console/v1/people/${added.body.id}`)).status).toBe(200);
    expect((await srv.call('DELETE', `/console/v1/people/${added.body.id}`)).status).toBe(404);
  });

  it('renames the local analyst', async () => {
    const renamed = await srv.call('PUT', '/console/v1/me', { name: 'Смирнов Алексей Игоревич' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.short_name).toBe('Смирнов А. И.');
    expect((await srv.call('PUT', '/console/v1/me', { name: ' ' })).status).toBe(400);
  });

  it('records the author of a mass_update from Pgr-User-Id', async () => {
    const inc = await srv.call('POST', '/cruddy/v2/service_asset_findings/search', search({ limit: 1, filters: [{ field: 'status', filter_type: 'equal', value: 'new' }] }));
    const id = inc.body.items[0].id;
    const res = await srv.call('POST', '/cruddy/v2/service_asset_findings/mass_update', { ids: [id], field: 'status', value: 'closed' }, { 'Pgr-User-Id': LOCAL_USER_ID });
    expect(res.status).toBe(200);
    const changes = await srv.call('POST', '/cruddy/v2/service_asset_finding_status_changes/search', search({
      limit: 1,
      filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: id }],
      ordering: [{ field: 'created_at', direction: 'desc' }],
    }));
    expect(changes.body.items[0].status).toBe('closed');
    expect(changes.body.items[0].user_id).toBe(LOCAL_USER_ID);
  });
});
