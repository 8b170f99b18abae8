// Managing the instances behind the routing port: the console API (/console/v1/instances:
// validation, keys never answered and kept owner-only outside the database, key changes, removal,
// connection tests and health) and the CLI (`radar-console instance list|add|remove|test`),
// including a running server seeing an instance the CLI added.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/store/db';
import { runCli, serve } from '../helpers/cli';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server';
import { api, deadUrl, expectElement, mainId, PUB, startRecordingProxy, UNKNOWN_ID, type LittleServer } from './issue3-helpers';

const REMOTE_KEY = 'remote-instance-key-1357';
const SECRET = 'very-secret-remote-key-2468';

let local: TestServer;
let remote: TestServer;
let proxy: LittleServer;
let main: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-instances-'));

const C = '/console/v1/instances';
const route = (method: string, p: string, instance?: string) =>
  local.call(method, p, undefined, instance ? { PgrSelectedInstance: instance } : {}, local.routing);

beforeAll(async () => {
  [local, remote] = await Promise.all([startTestServer(), startTestServer({ apiKey: REMOTE_KEY })]);
  proxy = await startRecordingProxy(remote.main);
  main = await mainId(local);
});

afterAll(async () => {
  await proxy?.close();
  await local?.stop();
  await remote?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function add(body: Record<string, unknown>): Promise<any> {
  const res = await local.call('POST', C, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function expectError(method: string, p: string, body: unknown, status: number, names: string[] = []): Promise<any> {
  const res = await local.call(method, p, body);
  expect(res.status, `${method} ${p} ${JSON.stringify(body)}: ${res.text}`).toBe(status);
  expect(res.body.error_code).toBe(status);
  expect(typeof res.body.error).toBe('string');
  for (const n of names) expect(res.body.error, JSON.stringify(body)).toContain(n);
  return res.body;
}

describe('console API: validation', () => {
  const remoteBase = { kind: 'remote', name: 'Проверка', url: 'http://127.0.0.1:9', api_key: 'k-123456789' };

  it('400 naming the field: bad url, missing or empty api_key, bad pinned_sha256, bad timeout_ms, missing db_file, unknown kind', async () => {
    await expectError('POST', C, { ...remoteBase, url: 'not a url' }, 400, ['url']);
    await expectError('POST', C, { ...remoteBase, url: 'ftp://127.0.0.1/x' }, 400, ['url']);
    const { api_key: _k, ...noKey } = remoteBase;
    await expectError('POST', C, noKey, 400, ['api_key']);
    await expectError('POST', C, { ...remoteBase, api_key: '' }, 400, ['api_key']);
    await expectError('POST', C, { ...remoteBase, pinned_sha256: 'abc' }, 400, ['pinned_sha256']);
    await expectError('POST', C, { ...remoteBase, pinned_sha256: 'Z'.repeat(64) }, 400, ['pinned_sha256']);
    await expectError('POST', C, { ...remoteBase, remote_instance_id: 'main' }, 400, ['remote_instance_id']);
    await expectError('POST', C, { ...remoteBase, timeout_ms: 5 }, 400, ['timeout_ms']);
    await expectError('POST', C, { kind: 'local', name: 'Без файла' }, 400, ['db_file']);
    await expectError('POST', C, { kind: 'cloud', name: 'x' }, 400);
    await expectError('POST', C, { kind: 'local', name: 'Каталог', db_file: tmp }, 400, [tmp]);
    await expectError('POST', C, { kind: 'local', name: 'Лишнее', db_file: path.join(tmp, 'x.sqlite'), url: 'http://127.0.0.1:1' }, 400, ['url']);
    await expectError('POST', C, { ...remoteBase, name: '' }, 400, ['name']);
    const list = await local.call('GET', C);
    expect(list.body.map((v: any) => v.name)).toEqual(['Main']);
  });

  it('a name in use (the main instance\'s or another\'s) is 409 name_already_used with extra.fields [name]', async () => {
    const first = await add({ kind: 'local', name: 'Дубль', db_file: path.join(tmp, 'dup.sqlite') });
    try {
      for (const name of ['Дубль', 'Main']) {
        const res = await local.call('POST', C, { kind: 'local', name, db_file: path.join(tmp, 'dup2.sqlite') });
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ error: 'name_already_used', error_code: 409, extra: { fields: ['name'] } });
      }
      const other = await add({ kind: 'local', name: 'Другой', db_file: path.join(tmp, 'other.sqlite') });
      await expectError('PUT', `${C}/${other.id}`, { url: 'http://127.0.0.1:1' }, 400, ['url']);
      await expectError('PUT', `${C}/${other.id}`, { api_key: 'k-123456789' }, 400, ['api_key']);
      const rename = await local.call('PUT', `${C}/${other.id}`, { name: 'Дубль' });
      expect(rename.status).toBe(409);
      expect(rename.body).toEqual({ error: 'name_already_used', error_code: 409, extra: { fields: ['name'] } });
      await local.call('DELETE', `${C}/${other.id}`);
    } finally {
      await local.call('DELETE', `${C}/${first.id}`);
    }
  });

  it('the main instance cannot be removed (400); an unknown id is 404 for PUT, DELETE and test', async () => {
    const del = await expectError('DELETE', `${C}/${main}`, undefined, 400);
    expect(del.error).toMatch(/main/i);
    await expectError('PUT', `${C}/${main}`, { sort_order: 5 }, 400);
    await expectError('PUT', `${C}/${UNKNOWN_ID}`, { name: 'x' }, 404);
    await expectError('DELETE', `${C}/${UNKNOWN_ID}`, undefined, 404);
    await expectError('POST', `${C}/${UNKNOWN_ID}/test`, undefined, 404);
    const list = await local.call('GET', '/tenancy/instance/list');
    expect(list.body.map((i: any) => i.id)).toEqual([main]);
  });
});

describe('console API: keys', () => {
  let inst: any;

  beforeAll(async () => {
    inst = await add({ kind: 'remote', name: 'С ключом', url: proxy.url, api_key: SECRET });
  });

  it('the key is in no answer; has_api_key is true', async () => {
    const texts: string[] = [JSON.stringify(inst)];
    expect(inst.has_api_key).toBe(true);
    expect(inst).not.toHaveProperty('api_key');
    const views = await local.call('GET', C);
    texts.push(views.text);
    expect(views.body.find((v: any) => v.id === inst.id)).toMatchObject({ kind: 'remote', has_api_key: true, remote_url: proxy.url });
    const renamed = await local.call('PUT', `${C}/${inst.id}`, { name: 'С ключом (переименована)' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.has_api_key).toBe(true);
    texts.push(renamed.text);
    texts.push((await local.call('POST', `${C}/${inst.id}/test`)).text);
    texts.push((await local.call('GET', `${C}/health`)).text);
    texts.push((await local.call('GET', '/tenancy/instance/list')).text);
    texts.push((await route('GET', C, main)).text);
    texts.push((await route('GET', `${PUB}/findings`)).text);
    texts.push((await local.call('GET', '/openapi.json')).text);
    for (const t of texts) expect(t).not.toContain(SECRET);
  });

  it('the key is kept in <db>.instance-keys.json (mode 0600), not in the database', () => {
    const vault = `${local.db}.instance-keys.json`;
    expect(fs.existsSync(vault)).toBe(true);
    if (process.platform !== 'win32') expect(fs.statSync(vault).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(JSON.parse(fs.readFileSync(vault, 'utf8')))).toContain(inst.id);
    for (const f of [local.db, `${local.db}-wal`]) {
      if (fs.existsSync(f)) expect(fs.readFileSync(f).includes(Buffer.from(SECRET)), f).toBe(false);
    }
  });

  it('PUT changes the key: the next routed call carries the new one', async () => {
    const from = proxy.requests.length;
    const before = await route('GET', `${PUB}/findings`, inst.id);
    expect(before.status, 'the remote refuses a key it does not know').toBe(401);
    expectElement(before.body[0], { id: inst.id, status: 401 });
    expect(proxy.requests.at(-1)!.headers.pgrapikey).toBe(SECRET);
    const put = await local.call('PUT', `${C}/${inst.id}`, { api_key: REMOTE_KEY });
    expect(put.status, put.text).toBe(200);
    expect(put.text).not.toContain(REMOTE_KEY);
    expect(put.body.has_api_key).toBe(true);
    const after = await route('GET', `${PUB}/findings`, inst.id);
    expect(after.status, after.text).toBe(200);
    expect(proxy.requests.at(-1)!.headers.pgrapikey).toBe(REMOTE_KEY);
    expect(proxy.requests.length).toBe(from + 2);
    const vault = fs.readFileSync(`${local.db}.instance-keys.json`, 'utf8');
    expect(vault).toContain(REMOTE_KEY);
    expect(vault).not.toContain(SECRET);
  });

  it('POST /:id/test: ok for a live remote, not ok (502) for a dead one; health covers every instance', async () => {
    const ok = await local.call('POST', `${C}/${inst.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, status: 200, time_ms: expect.any(Number), error: '' });
    const dead = await add({ kind: 'remote', name: 'Мёртвая', url: await deadUrl(), api_key: 'k-dead-000' });
    try {
      const res = await local.call('POST', `${C}/${dead.id}/test`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: false, status: 502, time_ms: expect.any(Number) });
      expect(res.body.error.length).toBeGreaterThan(0);
      const mainTest = await local.call('POST', `${C}/${main}/test`);
      expect(mainTest.body).toMatchObject({ ok: true, status: 200 });
      const health = await local.call('GET', `${C}/health`);
      expect(health.status).toBe(200);
      const byId = Object.fromEntries(health.body.map((h: any) => [h.id, h]));
      expect(Object.keys(byId).sort()).toEqual([main, inst.id, dead.id].sort());
      expect(byId[main].ok).toBe(true);
      expect(byId[inst.id].ok).toBe(true);
      expect(byId[dead.id]).toMatchObject({ ok: false, status: 502 });
    } finally {
      await local.call('DELETE', `${C}/${dead.id}`);
    }
  });

  it('DELETE removes the instance from the list, the routing and the key file', async () => {
    const del = await local.call('DELETE', `${C}/${inst.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: inst.id });
    const list = await local.call('GET', '/tenancy/instance/list');
    expect(list.body.map((i: any) => i.id)).toEqual([main]);
    const views = await local.call('GET', C);
    expect(views.body.map((v: any) => v.id)).toEqual([main]);
    const from = proxy.requests.length;
    const fan = await route('GET', `${PUB}/findings`);
    expect(fan.body.map((e: any) => e.id)).toEqual([main]);
    const one = await route('GET', `${PUB}/findings`, inst.id);
    expect(one.status).toBe(404);
    expect(one.body).toEqual({ error: 'instance not found', error_code: 404 });
    expect(proxy.requests.length).toBe(from);
    expect(fs.readFileSync(`${local.db}.instance-keys.json`, 'utf8')).not.toContain(inst.id);
    await expectError('DELETE', `${C}/${inst.id}`, undefined, 404);
  });
});

describe('CLI: radar-console instance', () => {
  const db = path.join(tmp, 'cli', 'console.sqlite');
  const localFile = path.join(tmp, 'cli', 'branch.sqlite');
  const cli = (...args: string[]) => runCli(['instance', ...args, '--db', db]);

  it('bad flags: exit code 2 and a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [['add', '--local', localFile], /--name/],
      [['add', '--name', 'Оба', '--local', localFile, '--url', 'http://127.0.0.1:1'], /either --local .* or --url/],
      [['add', '--name', 'Пин', '--url', 'http://127.0.0.1:1', '--api-key', 'k-12345678', '--pin', 'nothex'], /pin.*SHA-256|SHA-256.*pin/i],
      [['add', '--name', 'Без ключа', '--url', 'http://127.0.0.1:1'], /--api-key/],
      [['frobnicate'], /frobnicate/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    for (const [i, r] of results.entries()) {
      const [args, msg] = cases[i]!;
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(msg);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it('add --local, add --url --api-key, list, list --json, test, remove', async () => {
    const missing = await cli('list');
    expect(missing.code, 'a database that does not exist is not created').toBe(1);
    expect(missing.stderr).toMatch(/the database .*console\.sqlite does not exist/);
    expect(fs.existsSync(db)).toBe(false);
    openDatabase(db).db.close();
    const typo = await cli('add', '--name', 'Филиал', '--local', `${localFile}x`);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/branch\.sqlitex does not exist .*--create/);
    expect(fs.existsSync(`${localFile}x`)).toBe(false);
    const addLocal = await cli('add', '--name', 'Филиал', '--local', localFile, '--create');
    expect(addLocal.code, addLocal.stderr).toBe(0);
    const localId = addLocal.stdout.trim();
    expect(localId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fs.existsSync(localFile), 'the local database is created').toBe(true);
    const addRemote = await cli('add', '--name', 'Удалённая', '--url', remote.main, '--api-key', REMOTE_KEY, '--timeout-ms', '5000');
    expect(addRemote.code, addRemote.stderr).toBe(0);
    const remoteId = addRemote.stdout.trim();
    const addDead = await cli('add', '--name', 'Мёртвая', '--url', await deadUrl(), '--api-key', 'k-dead-0000');
    expect(addDead.code, addDead.stderr).toBe(0);
    const taken = await cli('add', '--name', 'Филиал', '--local', localFile);
    expect(taken.code, 'a data conflict, not a usage error').toBe(1);
    expect(taken.stderr).toMatch(/the name "Филиал" is taken/);
    expect(taken.stderr).not.toContain('Usage:');

    const vault = `${db}.instance-keys.json`;
    if (process.platform !== 'win32') expect(fs.statSync(vault).mode & 0o777).toBe(0o600);

    const [list, listJson, testLocal, testRemote, testDead] = await Promise.all([
      cli('list'),
      cli('list', '--json'),
      cli('test', 'Филиал'),
      cli('test', 'Удалённая'),
      cli('test', 'Мёртвая'),
    ]);
    expect(list.code).toBe(0);
    for (const s of ['Main', 'Филиал', 'Удалённая', localId, remoteId, remote.main]) expect(list.stdout).toContain(s);
    expect(list.stdout).not.toContain(REMOTE_KEY);
    expect(listJson.code).toBe(0);
    expect(listJson.stdout).not.toContain(REMOTE_KEY);
    const rows = JSON.parse(listJson.stdout) as any[];
    expect(rows.map((r) => r.name)).toEqual(['Main', 'Филиал', 'Удалённая', 'Мёртвая']);
    expect(rows[0]).toMatchObject({ kind: 'main', sort_order: 0 });
    expect(rows[1]).toMatchObject({ id: localId, kind: 'local', db_file: localFile });
    expect(rows[2]).toMatchObject({ id: remoteId, kind: 'remote', url: remote.main, has_api_key: true, timeout_ms: 5000 });
    expect(testLocal.code, testLocal.stdout + testLocal.stderr).toBe(0);
    expect(testLocal.stdout).toMatch(/^ok/);
    expect(testRemote.code, testRemote.stdout + testRemote.stderr).toBe(0);
    expect(testRemote.stdout).toMatch(/^ok .*HTTP 200/);
    expect(testDead.code).toBe(1);
    expect(testDead.stdout).toMatch(/^FAIL/);

    const removed = await cli('remove', 'Мёртвая');
    expect(removed.code, removed.stderr).toBe(0);
    const byId = await cli('remove', localId);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain('kept');
    expect(fs.existsSync(localFile), 'the database file is kept').toBe(true);
    const [listed, again] = await Promise.all([cli('list', '--json'), cli('remove', 'Мёртвая')]);
    const after = JSON.parse(listed.stdout) as any[];
    expect(after.map((r) => r.name)).toEqual(['Main', 'Удалённая']);
    expect(again.code, 'an unknown name is refused').toBe(1);
    expect(again.stderr).toContain('no instance "Мёртвая"');
    const mainOne = await cli('remove', 'Main');
    expect(mainOne.code).toBe(1);
    expect(mainOne.stderr).toMatch(/"Main" is the main instance: the database .*console\.sqlite itself.*cannot be removed/);
  }, 120_000);

  it('a running server sees an instance the CLI adds afterwards, in its list and its routing', async () => {
    const sdb = path.join(tmp, 'served', 'radar.sqlite');
    const p = await serve(['--db', sdb, '--port', '0', '--routing-port', '0', '--seed', 'none', '--api-key', TEST_KEY]);
    try {
      const before = await api(p.ready.main, TEST_KEY, 'GET', '/tenancy/instance/list');
      expect(before.body).toHaveLength(1);
      const added = await runCli(['instance', 'add', '--db', sdb, '--name', 'Из CLI', '--url', remote.main, '--api-key', REMOTE_KEY]);
      expect(added.code, added.stderr).toBe(0);
      const id = added.stdout.trim();
      const after = await api(p.ready.main, TEST_KEY, 'GET', '/tenancy/instance/list');
      expect(after.body.map((i: any) => [i.id, i.name, i.url])).toEqual([
        [before.body[0].id, 'Main', p.ready.main],
        [id, 'Из CLI', remote.main],
      ]);
      const routed = await api(p.ready.routing, TEST_KEY, 'GET', `${PUB}/findings?per_page=1`, undefined, { PgrSelectedInstance: id });
      expect(routed.status, routed.text).toBe(200);
      expect(routed.body[0]).toMatchObject({ id, status_code: 200, error: 0, data: { objects: [], total: 0 } });
      const localLocal = path.join(tmp, 'served', 'extra.sqlite');
      const addedLocal = await runCli(['instance', 'add', '--db', sdb, '--name', 'Локальная из CLI', '--local', localLocal, '--create']);
      expect(addedLocal.code, addedLocal.stderr).toBe(0);
      const fan = await api(p.ready.routing, TEST_KEY, 'GET', `${PUB}/incidents`);
      expect(fan.body.map((e: any) => e.name)).toEqual(['Main', 'Из CLI', 'Локальная из CLI']);
      for (const e of fan.body) expect(e.status_code).toBe(200);
    } finally {
      expect(await p.stop()).toBe(0);
    }
  });
});
