// The built server (out/, made by `npm test` before its process tests) requires neither semver
// nor Fastify itself: Fastify is bundled with semver resolved to src-main/server/semver-on-use.ts,
// and Fastify's own dependencies stay in node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

describe('the build', () => {
  it('the built server requires neither semver nor Fastify itself (npm test builds out/ first)', () => {
    const dir = path.join(ROOT, 'out/main');
    const files = [...fs.readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => path.join(dir, f)), ...fs.readdirSync(path.join(dir, 'chunks')).map((f) => path.join(dir, 'chunks', f))];
    const requires = new Set(files.flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!)));
    expect(requires.has('find-my-way'), "Fastify's dependencies stay in node_modules").toBe(true);
    expect(requires.has('semver')).toBe(false);
    expect(requires.has('fastify')).toBe(false);
  });
});
