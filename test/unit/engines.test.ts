// Every package the lockfile installs supports the Node version the README names, except the
// ones the README lists as the known exceptions (so `npm ci` prints no other engine warning).
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('engines', () => {
  const named = /Requirements: Node\.js (\d+\.\d+) or later/.exec(README)?.[1];

  it("the README's Node version is package.json's engines.node", () => {
    expect(named).toBeTruthy();
    expect(semver.minVersion(pkg.engines.node)?.version).toBe(`${named}.0`);
  });

  it('every installed package supports it, but the three the README explains', () => {
    const min = `${named}.0`;
    const needsMore = Object.entries(lock.packages)
      .filter(([where, p]) => where && !Array.isArray(p.engines) && p.engines?.node && !semver.satisfies(min, p.engines.node))
      .map(([where, p]) => `${where.replace(/^.*node_modules\//, '')}@${p.version} (${(p.engines as { node: string }).node})`);
    const explained = ['electron', '@electron/get', '@electron-internal/extract-zip'];
    expect(needsMore.filter((s) => !explained.some((e) => s.startsWith(`${e}@`)))).toEqual([]);
    for (const e of explained) expect(README).toContain(`\`${e}\``);
  });
});
