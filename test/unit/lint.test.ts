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

const lint = (...files: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'node_modules/@biomejs/biome/bin/biome'), 'lint', '--colors=off', ...files], { cwd: ROOT, encoding: 'utf8' });

/** The rules each file broke, from biome's diagnostics (`file:line:col lint/group/rule`). */
function broken(out: string): Map<string, Set<string>> {
  const by = new Map<string, Set<string>>();
  for (const m of out.matchAll(/^(\S+):\d+:\d+ lint\/\w+\/(\w+)/gm)) {
    const file = path.basename(m[1]!);
    if (!by.has(file)) by.set(file, new Set());
    by.get(file)!.add(m[2]!);
  }
  return by;
}

it('refuses a floating promise, an unused import and a duplicate object key; passes the fixed code', () => {
  // Both files in one run (biome reads the project once): the bad one fails, the fixed one has nothing.
  const bad = path.join(dir, 'bad.ts');
  fs.writeFileSync(
    bad,
    `import fs from 'node:fs';\nasync function save(): Promise<void> {}\nexport function run(): void {\n  save();\n}\nexport const o = { a: 1, a: 2 };\n`,
  );
  const good = path.join(dir, 'good.ts');
  fs.writeFileSync(good, `async function save(): Promise<void> {}\nexport async function run(): Promise<void> {\n  await save();\n}\nexport const o = { a: 1 };\n`);
  const r = lint(bad, good);
  const out = r.stdout + r.stderr;
  expect(r.status, out).not.toBe(0);
  const rules = broken(out);
  expect([...(rules.get('bad.ts') ?? [])], out).toEqual(expect.arrayContaining(['noDuplicateObjectKeys', 'noFloatingPromises', 'noUnusedImports']));
  expect(rules.get('good.ts'), out).toBeUndefined();
  expect(out).toContain('Checked 2 files');
}, 60_000);
