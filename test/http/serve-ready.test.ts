// What `serve` loads before its ready line: the command line, the connection, the secrets and the
// two ports, nothing else. The resource registry, the store, Fastify, zod and the contract load
// after the ports listen (requests sent on the ready line wait for them), so each module added to
// the start's static imports shows here instead of slowing every start unnoticed.
// Runs the CLI from source or built (RADAR_CLI_BUILT=1): built chunks are read back to the source
// files and packages they were bundled from.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ROOT, serve } from '../helpers/cli';
import { copyDemoDatabase } from '../helpers/seed';

vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-ready-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Source files and packages a loaded file stands for: itself, or what a built chunk bundles. */
function sourcesOf(file: string): string[] {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  if (!rel.startsWith('out/')) return [rel];
  const bundled = [...fs.readFileSync(file, 'utf8').matchAll(/^\/\/ ((?:src-[\w-]+|node_modules)\/\S+)$/gm)].map((m) => m[1]!);
  return [rel, ...bundled];
}

/** The package a path is in (node_modules/<name> or node_modules/@scope/name), else undefined. */
const packageOf = (p: string): string | undefined => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1];

describe('serve before its ready line', () => {
  it('loads the connection, the secrets and the ports, not the registry, the store, Fastify or zod', async () => {
    const listing = path.join(tmp, 'loaded.txt');
    const p = await serve(['--db', copyDemoDatabase(path.join(tmp, 'demo.sqlite')), '--port', '0', '--routing-port', '0', '--seed', 'none'], {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(ROOT, 'test/helpers/loaded-at-ready.cjs')}`,
      RADAR_LOADED_AT_READY: listing,
    });
    let loaded: string[];
    try {
      // The server works as usual once the preload has listed what it loaded.
      const res = await fetch(`${p.ready.main}/tenancy/instance/list`, { headers: { PgrApiKey: p.ready.apiKey } });
      expect(res.status).toBe(200);
      loaded = fs.readFileSync(listing, 'utf8').split('\n').filter(Boolean).flatMap(sourcesOf);
    } finally {
      await p.stop();
    }
    const sources = loaded.filter((f) => f.startsWith('src-'));
    const packages = new Set(loaded.map(packageOf).filter((n) => n !== undefined));
    // The listing is what the process loaded: the start itself is in it.
    expect(sources).toContain('src-main/server/start.ts');
    expect(sources).toContain('src-main/store/connection.ts');
    expect(packages).toContain('better-sqlite3');
    const late = [
      'src-shared/resources/index.ts',
      'src-shared/public/entities.ts',
      'src-shared/contract/index.ts',
      'src-main/store/store.ts',
      'src-main/store/migrations.ts',
      'src-main/server/serving.ts',
      'src-main/server/app.ts',
      'src-main/server/api.ts',
    ];
    expect(sources.filter((f) => late.includes(f))).toEqual([]);
    expect([...packages].filter((n) => ['fastify', 'zod', 'ofetch', 'undici'].includes(n) || n.startsWith('@fastify/'))).toEqual([]);
  });
});
