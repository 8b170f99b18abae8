// The CLI as clients start it: the ready line, flags, exit codes, secrets on disk, signals.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { emptySearch } from '../../src-shared/schemas/search';
import { openConnection, SCHEMA_VERSION, schemaVersionOf, type Db } from '../../src-main/store/connection';
import { ROOT, runCli, serve } from '../helpers/cli';

// Each test starts command-line processes; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('radar-console serve', () => {
  it('prints exactly one ready line with main, routing, db and apiKey, and both ports answer', async () => {
    const db = path.join(tmp, 'a', 'one.sqlite');
    const p = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none']);
    try {
      const { ready } = p;
      expect(ready.main).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(ready.routing).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(ready.main).not.toBe(ready.routing);
      expect(ready.db).toBe(db);
      expect(fs.existsSync(db)).toBe(true);
      expect(p.stdout().split('\n').filter((l) => l.startsWith('radar-console ready')).length).toBe(1);
      for (const base of [ready.main, ready.routing]) {
        const r = await fetch(`${base}/cruddy/v2/findings/_meta`, { headers: { PgrApiKey: ready.apiKey } });
        expect(r.status).toBe(200);
      }
    } finally {
      expect(await p.stop('SIGTERM')).toBe(0);
    }
  });

  it('generates an API key on first start, keeps it owner-readable beside the database, and reuses it', async () => {
    const db = path.join(tmp, 'keys.sqlite');
    const first = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none'], { RADAR_API_KEY: '' });
    const key = first.ready.apiKey;
    await first.stop();
    const file = `${db}.secrets.json`;
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).apiKey).toBe(key);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.stderr()).not.toContain(JSON.parse(fs.readFileSync(file, 'utf8')).jwtSecret);
    const second = await serve(['--db', db, '--port', '0', '--routing-port', '0'], { RADAR_API_KEY: '' });
    expect(second.ready.apiKey).toBe(key);
    await second.stop('SIGINT');
  });

  it('takes the key from --api-key, else RADAR_API_KEY', async () => {
    const db = path.join(tmp, 'env.sqlite');
    const a = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none'], { RADAR_API_KEY: 'from-the-environment' });
    expect(a.ready.apiKey).toBe('from-the-environment');
    const ok = await fetch(`${a.ready.main}/cruddy/v2/findings/_meta`, { headers: { PgrApiKey: 'from-the-environment' } });
    expect(ok.status).toBe(200);
    await a.stop();
    const b = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--api-key', 'from-the-flag-1'], { RADAR_API_KEY: 'from-the-environment' });
    expect(b.ready.apiKey).toBe('from-the-flag-1');
    await b.stop();
  });

  it('seeds the demo dataset on a new database by default, and not with --seed none', async () => {
    const seeded = await serve(['--db', path.join(tmp, 'demo.sqlite'), '--port', '0', '--routing-port', '0']);
    const r = await fetch(`${seeded.ready.main}/cruddy/v2/service_asset_findings/search`, {
      method: 'POST',
      headers: { PgrApiKey: seeded.ready.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...emptySearch(1), include_fields: ['id'] }),
    });
    expect((await r.json()).total).toBeGreaterThan(100);
    await seeded.stop();
    const empty = await serve(['--db', path.join(tmp, 'empty.sqlite'), '--port', '0', '--routing-port', '0', '--seed', 'none']);
    const m = await fetch(`${empty.ready.main}/cruddy/v2/findings/search`, {
      method: 'POST',
      headers: { PgrApiKey: empty.ready.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(emptySearch(1)),
    });
    expect((await m.json()).total).toBe(0);
    await empty.stop();
  });

  it.each([
    [['--port', 'abc'], /option '--port <n>' argument 'abc' is invalid\. It must be an integer from 0 to 65535/],
    [['--port', '70000'], /argument '70000' is invalid\. It must be an integer from 0 to 65535/],
    [['--seed', 'lots'], /argument 'lots' is invalid\. Allowed choices are demo, none/],
    [['--unknown-flag'], /unknown option '--unknown-flag'/],
    [['--host', ''], /--host must not be empty/],
    [['--api-key', 'short'], /at least 8 characters/],
  ])('refuses bad flags %j with a clear message and exit code 2', async (args, message) => {
    const r = await runCli(['serve', ...args, '--db', path.join(tmp, 'bad.sqlite')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).not.toContain('ready');
    expect(r.stderr).toContain('Usage: radar-console serve [options]');
  });

  it('refuses an unknown command with exit code 2, and prints help', async () => {
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'\nUsage: radar-console \[options\] \[command\]/);
    const none = await runCli([]);
    expect(none.code, 'no command is a usage error').toBe(2);
    expect(none.stderr).toContain('Commands:');
    const help = await runCli(['help', 'serve']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--routing-port');
  });

  it('stops quietly when the reader of its output goes away (`radar-console serve --help | head -1`)', () => {
    // The package's bin, as a user's shell runs it (npm test builds out/ before the tests).
    const r = spawnSync('bash', ['-c', 'set -o pipefail; "$@" | head -1', 'bash', process.execPath, path.join(ROOT, 'bin/radar-console.js'), 'serve', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stdout).toBe('Usage: radar-console serve [options]\n');
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(r.status).toBe(0);
  });

  it('fails clearly when a port is taken', async () => {
    const first = await serve(['--db', path.join(tmp, 'busy.sqlite'), '--port', '0', '--routing-port', '0', '--seed', 'none']);
    const port = new URL(first.ready.main).port;
    const r = await runCli(['serve', '--db', path.join(tmp, 'busy2.sqlite'), '--port', port, '--routing-port', '0', '--seed', 'none']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/EADDRINUSE|in use/);
    await first.stop();
  });

  it('brings an older database up to date before its ready line, and refuses a newer one without listening', async () => {
    const db = path.join(tmp, 'versions.sqlite');
    const first = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none']);
    expect(await first.stop('SIGTERM')).toBe(0);
    const INDEX = 'ix_service_asset_findings_status_rank_created_at';
    const indexes = (c: Db) => c.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?").all(INDEX).length;
    // An older database: version 10, without an index of the registry that migration 11 makes
    // (with every index the registry declares); 11 and the migrations after it run.
    let c = openConnection(db).db;
    c.exec(`DROP INDEX ${INDEX}`);
    c.pragma('user_version = 10');
    c.close();
    const older = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none']);
    c = openConnection(db, { readonly: true }).db;
    expect(schemaVersionOf(c), 'migrated when the ready line is out').toBe(SCHEMA_VERSION);
    expect(indexes(c)).toBe(1);
    c.close();
    const r = await fetch(`${older.ready.main}/cruddy/v2/service_asset_findings/_meta`, { headers: { PgrApiKey: older.ready.apiKey } });
    expect(r.status).toBe(200);
    expect(await older.stop('SIGTERM')).toBe(0);
    c = openConnection(db).db;
    c.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    c.close();
    const newer = await runCli(['serve', '--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none']);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toContain(`database schema version ${SCHEMA_VERSION + 1} is newer than this build supports (${SCHEMA_VERSION})`);
    expect(newer.stdout).toBe('');
  });
});

describe('radar-console token', () => {
  it('issues a Bearer token the server of that database accepts', async () => {
    const db = path.join(tmp, 'token.sqlite');
    const p = await serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none']);
    const t = await runCli(['token', '--db', db, '--user', '4b7c0b0e-4c1c-4a57-9f3e-0d8e5a7c1f22', '--ttl', '600']);
    expect(t.code).toBe(0);
    const token = t.stdout.trim();
    expect(token.split('.').length).toBe(3);
    const ok = await fetch(`${p.ready.main}/cruddy/v2/findings/_meta`, { headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const bad = await fetch(`${p.ready.main}/cruddy/v2/findings/_meta`, { headers: { Authorization: `Bearer ${token}x` } });
    expect(bad.status).toBe(401);
    await p.stop();
    expect((await runCli(['token', '--db', db, '--user', 'nope'])).code).toBe(2);
  });
});
