// `radar-console sync ...` as scripts call it: a snapshot taken with the CLI, changed offline,
// pushed and pulled against a real origin over sockets; exit codes, --json, --dry-run, bad flags.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { runCli } from '../helpers/cli';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const I = getResource('service_asset_findings');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-sync-cli-'));
let origin: TestServer;
let snap: string;
let main: string;

/** Changes the snapshot the way any local client does: through the store's write path. */
function offline(fn: (store: Store) => void): void {
  const { db } = openDatabase(snap, { create: false });
  try {
    fn(new Store(db));
  } finally {
    db.close();
  }
}
const sync = (...args: string[]) => runCli(['sync', ...args]);
const incidents = async (n: number) =>
  (await origin.call('POST', '/cruddy/v2/service_asset_findings/search', search({ filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], ordering: [{ field: 'display_id', direction: 'asc' }], limit: n }))).body
    .items as { id: string; internal_note: string | null }[];
const onOrigin = async (id: string) => (await origin.call('GET', `/cruddy/v2/service_asset_findings/${id}?relations=`)).body;

beforeAll(async () => {
  origin = await startTestServer({ seed: 'demo' });
  snap = path.join(tmp, 'snap.sqlite');
  main = path.join(tmp, 'main.sqlite');
  openDatabase(main).db.close();
  const res = await runCli(['snapshot', '--url', origin.main, '--api-key', TEST_KEY, '--out', snap, '--add-instance', 'Выезд', '--db', main]);
  expect(res.code, res.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await origin?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// Each test runs the command line several times (a process each): generous on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

describe('radar-console sync', () => {
  it('status, a dry run that changes nothing, then a push; by file or by instance name', async () => {
    const [a, b] = await incidents(2);
    offline((s) => {
      s.update(I, { id: a!.id, status: 'closed', internal_note: 'закрыт офлайн' });
      s.update(I, { id: b!.id, risklevel: 7.5 });
    });
    const st = await sync('status', '--instance', 'Выезд', '--db', main, '--json');
    expect(st.code, st.stderr).toBe(0);
    const status = JSON.parse(st.stdout);
    expect(status.counts).toMatchObject({ pending: 3, total: 3, records: 2 });
    expect(status.origin).toMatchObject({ url: origin.main, has_key: true });
    expect(st.stdout).not.toContain(TEST_KEY);
    const human = await sync('status', '--db', snap);
    expect(human.stdout).toMatch(/3 pending, 0 unconfirmed, 0 conflicts, 0 failed \(2 records\)/);
    expect(human.stdout).toMatch(/status: "new" -> "closed"/);

    const bytes = fs.readFileSync(snap);
    const dry = await sync('push', '--db', snap, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`PUT /data/public/api/v1/incidents/update/status {"id":"${a!.id}","status":"closed"}`);
    expect(dry.stdout).toContain(`PUT /data/public/api/v1/incidents/update/critical {"id":"${b!.id}","risklevel":7.5}`);
    expect(dry.stdout).toContain('PUT /cruddy/v2/service_asset_findings/update');
    expect(dry.stderr).toMatch(/dry run: 3 requests would be sent; .*nothing was sent or changed/);
    expect(fs.readFileSync(snap).equals(bytes)).toBe(true);
    expect((await onOrigin(a!.id)).status).toBe('new');

    const pushed = await sync('push', '--db', snap, '--json');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout)).toMatchObject({ pushed: 3, requests: 3, conflicts: 0, left: { total: 0 } });
    expect(pushed.stderr).toMatch(/push to http:\/\/127\.0\.0\.1:\d+: 3 changes pushed \(3 requests, 0 already there\), 0 conflicts, 0 failed/);
    expect(await onOrigin(a!.id)).toMatchObject({ status: 'closed', internal_note: 'закрыт офлайн' });
    expect((await onOrigin(b!.id)).risklevel).toBe(7.5);
  });

  it('exit code 4 while conflicts are left; resolve settles them', async () => {
    const [, , c] = await incidents(3);
    offline((s) => s.update(I, { id: c!.id, internal_note: 'офлайн' }));
    await origin.call('PUT', '/cruddy/v2/service_asset_findings/update', { id: c!.id, internal_note: 'на платформе' });
    const pushed = await sync('push', '--db', snap);
    expect(pushed.code).toBe(4);
    expect(pushed.stderr).toMatch(/0 changes pushed .* 1 conflicts/);
    const st = await sync('status', '--db', snap, '--state', 'conflict', '--json');
    expect(st.code, 'status only reports').toBe(0);
    expect((await sync('status', '--db', snap, '--check')).code).toBe(4);
    const [entry] = JSON.parse(st.stdout).entries;
    expect(entry).toMatchObject({ field: 'internal_note', after: 'офлайн', theirs: 'на платформе' });
    const res = await sync('resolve', '--db', snap, '--entries', String(entry.seq), '--take', 'mine');
    expect(res.code, res.stderr).toBe(0);
    expect((await sync('push', '--db', snap)).code).toBe(0);
    expect((await onOrigin(c!.id)).internal_note).toBe('офлайн');
  });

  it('pull brings the origin changes; discard puts a change back', async () => {
    const [d, e] = await incidents(2);
    await origin.call('PUT', '/data/public/api/v1/incidents/update/status', { id: d!.id, status: 'invalid' });
    const pulled = await sync('pull', '--db', snap, '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout).lists.incidents.updated).toBeGreaterThanOrEqual(1);
    expect(pulled.stderr).toMatch(/pull from http:\/\/127\.0\.0\.1:\d+: \d+ records received/);
    offline((s) => expect(s.find(I, d!.id)!.status).toBe('invalid'));

    offline((s) => s.update(I, { id: e!.id, internal_note: 'передумал' }));
    const [entry] = JSON.parse((await sync('status', '--db', snap, '--json')).stdout).entries;
    const res = await sync('discard', '--db', snap, '--entries', String(entry.seq));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/1 entries discarded, 1 records put back as copied/);
    offline((s) => expect(s.find(I, e!.id)!.internal_note).toBe(e!.internal_note));
    expect(JSON.parse((await sync('status', '--db', snap, '--json')).stdout).counts.total).toBe(0);
  });

  it('import --as-changes: the records it brings into the snapshot wait to be pushed; without it, none', async () => {
    const file = path.join(tmp, 'findings.json');
    const id = '5e0b1a7c-2f3d-4c8e-9b6a-1d2e3f4a5b6c';
    fs.writeFileSync(file, JSON.stringify([{ id, title: 'Заведено офлайн', type: 'network_anomaly' }]));
    const plain = await runCli(['import', file, '--db', snap]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse((await sync('status', '--db', snap, '--json')).stdout).counts.total).toBe(0);
    fs.writeFileSync(file, JSON.stringify([{ id, title: 'Заведено офлайн, уточнено', type: 'network_anomaly' }]));
    const asked = await runCli(['import', file, '--db', snap, '--as-changes']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toMatch(/recorded as changes to push: 1 entries waiting/);
    const [entry] = JSON.parse((await sync('status', '--db', snap, '--json')).stdout).entries;
    expect(entry).toMatchObject({ resource: 'findings', record_id: id, op: 'update', field: 'title', before: 'Заведено офлайн', after: 'Заведено офлайн, уточнено' });
    const res = await sync('discard', '--db', snap, '--all');
    expect(res.code, res.stderr).toBe(0);
    const refused = await runCli(['import', file, '--db', main, '--as-changes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is not a snapshot of a platform/);
  });

  it('an unreachable origin: exit 1 with the reason, the change kept', async () => {
    const [f] = await incidents(1);
    offline((s) => {
      s.update(I, { id: f!.id, client_note: 'ждёт связи' });
      s.db.prepare('UPDATE sync_origin SET url = ?').run('http://127.0.0.1:1');
    });
    try {
      const res = await sync('push', '--db', snap);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/push stopped: the origin http:\/\/127\.0\.0\.1:1 is unreachable: .*nothing is lost, run it again/);
      expect(JSON.parse((await sync('status', '--db', snap, '--json')).stdout).counts).toMatchObject({ pending: 1 });
    } finally {
      offline((s) => s.db.prepare('UPDATE sync_origin SET url = ?').run(origin.main));
    }
    expect((await sync('push', '--db', snap)).code).toBe(0);
  });

  it('bad flags exit with 2; databases that are missing or no snapshots with 1; nothing is created', async () => {
    const missing = path.join(tmp, 'typo.sqlite');
    const cases: [string[], number, RegExp][] = [
      [['nope'], 2, /unknown command 'nope'/],
      [['discard', '--db', snap], 2, /discard needs --entries N\[,N\.\.\.\] or --all/],
      [['resolve', '--db', snap, '--entries', '999999', '--take', 'theirs'], 2, /no outbox entry 999999/],
      [['push', '--db', missing], 1, /typo\.sqlite does not exist/],
      [['status', '--db', main], 1, /is not a snapshot of a platform/],
    ];
    for (const [args, code, message] of cases) {
      const res = await sync(...args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(code);
      expect(res.stderr).toMatch(message);
    }
    expect(fs.existsSync(missing)).toBe(false);
    const help = await sync('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/status \[options\] +the origin, the counts, and the changes waiting/);
    expect(help.stdout).toMatch(/3 another push or pull of this snapshot is running; 4 conflicts left; 8 failed changes left;\s+12 both/);
  });
});
