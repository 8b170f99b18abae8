// The command line's structure as users meet it: every command's generated help, usage errors
// apart from data errors, no database created from a typo, serve's logs on stderr, and
// `radar-console api` against a running server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProgram, main } from '../../src-main/cli/program';
import { readyFileFor } from '../../src-main/cli/ready';
import { emptySearch } from '../../src-shared/schemas/search';
import { runCli, serve, type ServeProcess } from '../helpers/cli';

// Each test starts command-line processes; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-cli-cmd-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every command and subcommand of the program, as the words typed before --help. */
function commandPaths(cmd: CommandUnknownOpts, prefix: string[] = []): { words: string[]; cmd: CommandUnknownOpts }[] {
  return cmd.commands.flatMap((c) => {
    const sub = c as CommandUnknownOpts;
    const words = [...prefix, sub.name()];
    return [{ words, cmd: sub }, ...commandPaths(sub, words)];
  });
}

describe('help', () => {
  it('every command answers --help with its own flags on stdout, exit 0', async () => {
    const all = commandPaths(buildProgram());
    expect(all.map((c) => c.words.join(' '))).toEqual(expect.arrayContaining(['serve', 'token', 'api', 'instance list', 'instance add', 'import', 'export', 'snapshot']));
    for (const { words, cmd } of all) {
      // in this process, through the same entry as the command line (spawning each is the pack test's job)
      let out = '';
      let err = '';
      const code = await main([...words, '--help'], { out: (s) => void (out += s), err: (s) => void (err += s) });
      expect(code, words.join(' ')).toBe(0);
      expect(err).toBe('');
      expect(out).toContain(`Usage: radar-console ${words.join(' ')}`);
      for (const o of cmd.options) expect(out, `${words.join(' ')} ${o.long}`).toContain(o.long!);
    }
  });

  it('prints the version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')).version);
  });
});

describe('commands that read a database never create one', () => {
  it.each([
    [['token']],
    [['instance', 'list']],
    [['instance', 'test', 'Main']],
    [['instance', 'remove', 'Main']],
    [['export', '--resource', 'findings', '--format', 'json', '--out', '-']],
    [['api', '/data/public/api/v1/findings']],
  ])('%j on a mistyped --db says it does not exist, exit 1, and writes nothing', async (args) => {
    const typo = path.join(tmp, 'typo', 'radr.sqlite');
    const r = await runCli([...args, '--db', typo]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`radar-console: the database ${typo} does not exist`);
    expect(r.stderr).not.toContain('Usage:');
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.dirname(typo))).toBe(false);
  });
});

describe('serve --log', () => {
  it('logs requests to stderr only, with the key redacted; stdout holds just the ready line', async () => {
    const p = await serve(['--db', path.join(tmp, 'log.sqlite'), '--port', '0', '--routing-port', '0', '--seed', 'none', '--log']);
    try {
      const r = await fetch(`${p.ready.main}/cruddy/v2/findings/_meta`, { headers: { PgrApiKey: p.ready.apiKey } });
      expect(r.status).toBe(200);
      await new Promise((res) => setTimeout(res, 300));
      expect(p.stdout().split('\n').filter(Boolean)).toEqual([expect.stringMatching(/^radar-console ready \{/)]);
      const logLines = p
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } });
      expect(logLines.some((l) => l.req?.url === '/cruddy/v2/findings/_meta')).toBe(true);
      // The request logs redact it; the one line holding the key is the console's address, printed to open.
      const withKey = p.stderr().split('\n').filter((l) => l.includes(p.ready.apiKey));
      expect(withKey).toEqual([`${p.ready.main}/#key=${encodeURIComponent(p.ready.apiKey)}`]);
    } finally {
      await p.stop();
    }
  });
});

describe('radar-console api', () => {
  let p: ServeProcess;
  let db: string;
  beforeAll(async () => {
    db = path.join(tmp, 'api.sqlite');
    p = await serve(['--db', db, '--port', '0', '--routing-port', '0'], { RADAR_API_KEY: '' });
  });
  afterAll(async () => {
    await p?.stop();
  });
  const api = (...args: string[]) => runCli(['api', ...args, '--db', db], { RADAR_API_KEY: '' });

  it('finds the running server of --db and calls it with the key kept beside the database', async () => {
    const info = JSON.parse(fs.readFileSync(readyFileFor(db), 'utf8'));
    expect(info).toMatchObject({ main: p.ready.main, routing: p.ready.routing, key: 'stored' });
    expect(JSON.stringify(info)).not.toContain(p.ready.apiKey);
    const r = await api('/data/public/api/v1/incidents?status=in,new&per_page=3');
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { objects: { status: string }[]; total: number };
    expect(body.objects).toHaveLength(3);
    expect(body.objects.every((o) => o.status === 'new')).toBe(true);
    expect(body.total).toBeGreaterThan(3);
  });

  it('sends --data as JSON (inline, @file), POST by default with a body', async () => {
    const search = { ...emptySearch(2), filters: [{ field: 'status', filter_type: 'equal', value: 'new' }], include_fields: ['id', 'status'] };
    const inline = await api('POST', '/cruddy/v2/service_asset_findings/search', '--data', JSON.stringify(search));
    expect(inline.code, inline.stderr).toBe(0);
    expect(JSON.parse(inline.stdout)).toMatchObject({ items: [{ status: 'new' }, { status: 'new' }] });
    const file = path.join(tmp, 'search.json');
    fs.writeFileSync(file, JSON.stringify(search));
    const fromFile = await api('/cruddy/v2/service_asset_findings/search', '--data', `@${file}`);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toEqual(JSON.parse(inline.stdout));
  });

  it('prints an error answer, says its status on stderr and exits 1', async () => {
    const r = await api('GET', '/cruddy/v2/findings/not-a-uuid');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ error_code: 400 });
    expect(r.stderr).toContain('radar-console: HTTP 400');
  });

  it('routes to one instance by name with --instance, and to all with --all-instances', async () => {
    const one = await api('/data/public/api/v1/findings?per_page=1', '--instance', 'Main');
    expect(one.code, one.stderr).toBe(0);
    const envelope = JSON.parse(one.stdout) as { name: string; status_code: number; data: { objects: unknown[] } }[];
    expect(envelope).toHaveLength(1);
    expect(envelope[0]).toMatchObject({ name: 'Main', status_code: 200, error: 0, data: { objects: [expect.any(Object)] } });
    const all = await api('/data/public/api/v1/findings?per_page=1', '--all-instances');
    expect(all.code, all.stderr).toBe(0);
    expect((JSON.parse(all.stdout) as unknown[]).length).toBe(1);
    const unknown = await api('/data/public/api/v1/findings', '--instance', 'Нет такой');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no instance "Нет такой"; the server has "Main"');
  });

  it('takes --url or --port with --api-key', async () => {
    const port = new URL(p.ready.main).port;
    const [byUrl, byPort, wrongKey] = await Promise.all([
      runCli(['api', '/tenancy/instance/list', '--url', p.ready.main, '--api-key', p.ready.apiKey]),
      runCli(['api', '/tenancy/instance/list', '--port', port], { RADAR_API_KEY: p.ready.apiKey }),
      runCli(['api', '/tenancy/instance/list', '--port', port, '--api-key', 'wrong-key-123']),
    ]);
    expect(byUrl.code, byUrl.stderr).toBe(0);
    expect(JSON.parse(byUrl.stdout)[0]).toMatchObject({ name: 'Main' });
    expect(byPort.stdout).toBe(byUrl.stdout);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('HTTP 401');
  });

  it('usage errors exit 2; no running server exits 1 and says how to start one', async () => {
    const usage: [string[], RegExp][] = [
      [['FETCH', '/x'], /unknown method "FETCH"/],
      [['GET', 'no-slash'], /the path must start with \//],
      [['/x', '--data', '{not json'], /--data is not JSON/],
      [['/x', '--data', '@/no/such/file.json'], /--data @\/no\/such\/file\.json: no such file/],
      [['/x', '--instance', 'Main', '--all-instances'], /either --instance or --all-instances/],
    ];
    const results = await Promise.all(usage.map(([args]) => api(...args)));
    results.forEach((r, i) => {
      expect(r.code, usage[i]![0].join(' ')).toBe(2);
      expect(r.stderr).toMatch(usage[i]![1]);
      expect(r.stderr).toContain('Usage: radar-console api');
    });
    const idle = path.join(tmp, 'idle.sqlite');
    fs.writeFileSync(idle, '');
    const none = await runCli(['api', '/x', '--db', idle]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no server is running for ${idle} (start one with \`radar-console serve --db ${idle}\``);
  });

  it('a server with a key of its own: api says to give it; the ready file goes when the server stops', async () => {
    const own = path.join(tmp, 'own.sqlite');
    const q = await serve(['--db', own, '--port', '0', '--routing-port', '0', '--seed', 'none', '--api-key', 'my-own-key-1']);
    try {
      const refused = await runCli(['api', '/tenancy/instance/list', '--db', own], { RADAR_API_KEY: '' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/runs with a key of its own .*give the same with --api-key or RADAR_API_KEY/);
      const ok = await runCli(['api', '/tenancy/instance/list', '--db', own], { RADAR_API_KEY: 'my-own-key-1' });
      expect(ok.code, ok.stderr).toBe(0);
    } finally {
      expect(await q.stop()).toBe(0);
    }
    expect(fs.existsSync(readyFileFor(own))).toBe(false);
    const after = await runCli(['api', '/tenancy/instance/list', '--db', own]);
    expect(after.stderr).toContain('no server is running');
  });
});
