// Fastify is bundled with `semver` resolved to src-main/server/semver-on-use.ts (its version
// checks of plugins load semver when first used). These hold the bundle to it: every semver
// function Fastify calls is there and answers as semver does (the built server's requires are
// checked by test/http/build-output.test.ts, once the build has run).
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import * as onUse from '../../src-main/server/semver-on-use';

const ROOT = path.resolve(__dirname, '../..');
const FASTIFY = path.join(ROOT, 'node_modules/fastify');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'test' || e.name === 'types' ? [] : sources(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

describe('semver for the bundled Fastify', () => {
  it('has every semver function Fastify calls', () => {
    const used = new Set<string>();
    for (const file of [path.join(FASTIFY, 'fastify.js'), ...sources(path.join(FASTIFY, 'lib'))]) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/\bsemver\.([A-Za-z_$][\w$]*)/g)) used.add(m[1]!);
    }
    expect(used.size, 'Fastify calls semver somewhere').toBeGreaterThan(0);
    for (const name of used) expect(typeof (onUse as Record<string, unknown>)[name], `semver.${name}`).toBe('function');
  });

  it('answers as semver does', () => {
    for (const [v, range] of [
      ['5.12.8', '5.x'],
      ['5.12.8', '>=4.0.0'],
      ['5.12.8', '^4.0.0'],
      ['5.0.0-rc.1', '5.x'],
    ] as const) {
      expect(onUse.satisfies(v, range), `${v} ${range}`).toBe(semver.satisfies(v, range));
      expect(onUse.satisfies(v, range, { includePrerelease: true })).toBe(semver.satisfies(v, range, { includePrerelease: true }));
    }
    expect(onUse.coerce('v5')?.version).toBe('5.0.0');
    expect(onUse.gt('5.12.8', onUse.coerce('5.x')!)).toBe(true);
    expect(onUse.gt('5.0.0', '5.0.0')).toBe(false);
  });

});
