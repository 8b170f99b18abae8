// The linter's rules are on: code with the bugs they exist for fails `biome lint` (the step
// `npm test` runs), and the same code without them passes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
// Inside the repository, so that biome.json's file selection applies (not ignored by git).
const dir = fs.mkdtempSync(path.join(ROOT, 'test', 'lint-fixture-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const lint = (file: string) => spawnSync(process.execPath, [path.join(ROOT, 'node_modules/@biomejs/biome/bin/biome'), 'lint', '--colors=off', file], { cwd: ROOT, encoding: 'utf8' });

it('refuses a floating promise, an unused import and a duplicate object key; passes the fixed code', () => {
  const bad = path.join(dir, 'bad.ts');
  fs.writeFileSync(
    bad,
    `import fs from 'node:fs';\nasync function save(): Promise<void> {}\nexport function run(): void {\n  save();\n}\nexport const o = { a: 1, a: 2 };\n`,
  );
  const r = lint(bad);
  expect(r.status).not.toBe(0);
  const out = r.stdout + r.stderr;
  for (const rule of ['noFloatingPromises', 'noUnusedImports', 'noDuplicateObjectKeys']) expect(out).toContain(rule);
  const good = path.join(dir, 'good.ts');
  fs.writeFileSync(good, `async function save(): Promise<void> {}\nexport async function run(): Promise<void> {\n  await save();\n}\nexport const o = { a: 1 };\n`);
  const ok = lint(good);
  expect(ok.status, ok.stdout + ok.stderr).toBe(0);
}, 60_000);
