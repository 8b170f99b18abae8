// The layering rule (architecture: environments) is executable and can fail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { checkLayers, importsOf, sqlViolationsOf, violation } from '../../scripts/check-layers.mjs';

describe('check-layers', () => {
  it('reads static, type-only, re-exported, dynamic and require() imports with a TypeScript parser', () => {
    const src = `import type { A } from 'electron';\nimport b from './b';\nexport * from './c';\nexport { d } from './d';\nconst e = await import('./e');\nconst f = require('f');\nconst g = <T,>(x: T): T => x;`;
    expect(importsOf('x.ts', src)).toEqual(['electron', './b', './c', './d', './e', 'f']);
    expect(importsOf('x.tsx', `import React from 'react'; export const C = () => <div a={1} />;`)).toEqual(['react']);
  });

  it.each([
    ['src-shared/a.ts', 'zod', null],
    ['src-shared/a.ts', './b', null],
    ['src-shared/a.ts', 'node:fs', /src-shared may import only itself and zod/],
    ['src-shared/a.ts', 'react', /src-shared may import only itself and zod/],
    ['src-shared/a.ts', '../src-main/store/store', /src-shared may import only itself and zod/],
    ['src-main/store/x.ts', 'better-sqlite3', null],
    ['src-main/store/x.ts', 'node:fs', null],
    ['src-main/store/x.ts', '../../src-shared/errors', null],
    ['src-main/store/x.ts', 'electron', /src-main may not import electron/],
    ['src-main/store/x.ts', '../electron/main', /may not import Electron code/],
    ['src-main/store/x.ts', '../../src-renderer/src/App', /src-main may not import src-renderer/],
    ['src-main/server/x.ts', 'react', /src-main may not import react/],
    ['src-main/electron/main.ts', 'electron', null],
    ['src-main/preload/index.ts', 'electron', null],
    ['src-main/index.ts', 'electron', null],
    ['src-renderer/src/App.tsx', 'react', null],
    ['src-renderer/src/App.tsx', '../../src-shared/schemas/search', null],
    ['src-renderer/src/App.tsx', 'node:path', /src-renderer may not import Node built-ins/],
    ['src-renderer/src/App.tsx', 'fs', /src-renderer may not import Node built-ins/],
    ['src-renderer/src/App.tsx', 'electron', /src-renderer may not import electron/],
    ['src-renderer/src/App.tsx', '../../src-main/store/store', /src-renderer may not import src-main/],
    // layers inside src-main
    ['src-main/store/store.ts', '../server/errors', /src-main\/store may not import src-main\/server/],
    ['src-main/store/store.ts', '../transfer/import', /src-main\/store may not import src-main\/transfer/],
    ['src-main/server/routes/public.ts', '../../store/store', null],
    ['src-main/server/routes/public.ts', 'better-sqlite3', /src-main\/server may not import better-sqlite3/],
    ['src-main/instances/catalog.ts', 'better-sqlite3', /src-main\/instances may not import better-sqlite3/],
    ['src-main/transfer/export.ts', 'better-sqlite3', /src-main\/transfer may not import better-sqlite3/],
    ['src-main/sync/push.ts', 'better-sqlite3', /src-main\/sync may not import better-sqlite3/],
    ['src-main/transfer/export.ts', '../server/app', /src-main\/transfer may not import src-main\/server/],
    ['src-main/instances/catalog.ts', '../sync/push', /src-main\/instances may not import src-main\/sync/],
    ['src-main/cli/serve.ts', '../server/start', null],
    ['src-main/cli.ts', './cli/program', null],
    ['src-main/cli/serve.ts', '../electron/main', /may not import Electron code/],
    ['src-main/electron/main.ts', '../server/start', null],
  ])('%s importing %s', (file, spec, expected) => {
    const why = violation(file, spec);
    if (expected === null) expect(why).toBeNull();
    else expect(why).toMatch(expected);
  });

  it.each([
    ['a .prepare() call', `export const n = (db: D) => db.prepare('x').get();`, /:1: calls \.prepare\(\)/],
    ['a transaction', `export const t = (db: D, f: () => void) => db.transaction(f)();`, /:1: calls \.transaction\(\)/],
    ['a pragma through optional chaining', `export const v = (db?: D) => db?.pragma('user_version');`, /:1: calls \.pragma\(\)/],
    ['a SELECT … FROM template', `const t = 'x';\nexport const s = \`SELECT a, b\n  FROM \${t} WHERE a = ?\`;`, /:2: SQL text "SELECT a, b/],
    ['a PRAGMA string', `export const s = 'PRAGMA user_version';`, /:1: SQL text "PRAGMA user_version"/],
    ['an INSERT', `export const s = "INSERT OR REPLACE INTO t (a) VALUES (?)";`, /SQL text "INSERT OR REPLACE INTO t/],
    ['an UPDATE', 'export const s = `UPDATE sync_outbox SET state = ?`;', /SQL text "UPDATE sync_outbox SET/],
    ['a DELETE', `export const s = 'DELETE FROM t WHERE id = ?';`, /SQL text "DELETE FROM t/],
    ['a transaction statement', `export const s = 'BEGIN IMMEDIATE';`, /SQL text "BEGIN IMMEDIATE"/],
    ['a CTE', 'export const s = `WITH RECURSIVE tree(id) AS (SELECT 1)`;', /SQL text "WITH RECURSIVE tree/],
    ['a type import of better-sqlite3', `import type Database from 'better-sqlite3';\nexport type D = Database.Database;`, /:1: imports better-sqlite3/],
    ['an import() type of better-sqlite3', `export type D = import('better-sqlite3').Database;`, /:1: imports better-sqlite3 types/],
    ['a require of better-sqlite3', `export const D = require('better-sqlite3');`, /:1: loads better-sqlite3/],
  ])('refuses SQL outside the store: %s', (_what, src, expected) => {
    const found = sqlViolationsOf('src-main/sync/x.ts', src);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^src-main\/sync\/x\.ts:\d+: /);
    expect(found[0]).toMatch(expected);
  });

  it.each([
    ['a store function called', 'src-main/sync/x.ts', `import { Runner } from '../store/query/runner';\nexport const n = (store: never, r: never) => new Runner(store).countAll(r);`],
    ['a regular expression run', 'src-main/server/x.ts', `export const bearer = (x: string) => /^Bearer /.exec(x);`],
    ['a help text', 'src-main/cli/x.ts', `export const help = 'Select all matching records; update the selection; begin again';`],
    ['a PEM text', 'src-main/instances/x.ts', `export const pem = '-----BEGIN CERTIFICATE-----';`],
    ['SQL inside the store', 'src-main/store/x.ts', `import type Database from 'better-sqlite3';\nexport const n = (db: Database.Database) => db.prepare('SELECT COUNT(*) FROM t').get();`],
    ['a computed field declared in src-shared', 'src-shared/resources/x.ts', `export const sql = '(SELECT COUNT(*) FROM occurrences o WHERE o.incident_id = t.id)';`],
  ])('lets pass: %s', (_what, file, src) => {
    expect(sqlViolationsOf(file, src)).toEqual([]);
  });

  it('names the file and line of SQL outside the store in a tree, and passes a file calling the store', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      const write = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        fs.writeFileSync(path.join(root, rel), text);
      };
      write('src-main/store/outbox-log.ts', `export type Db = { prepare(sql: string): { all(): unknown[] } };\nexport const pendingIds = (db: Db) => db.prepare('SELECT record_id FROM sync_outbox').all();`);
      write('src-main/sync/ok.ts', `import { pendingIds, type Db } from '../store/outbox-log';\nexport const ids = (db: Db) => pendingIds(db);`);
      expect(checkLayers(root).problems).toEqual([]);
      write('src-main/sync/bad.ts', `import type { Db } from '../store/outbox-log';\n\nexport const ids = (db: Db) =>\n  db.prepare(\`SELECT record_id FROM sync_outbox\`).all();`);
      const { problems } = checkLayers(root);
      expect(problems).toHaveLength(2);
      expect(problems[0]).toMatch(/^src-main\/sync\/bad\.ts:4: calls \.prepare\(\)/);
      expect(problems[1]).toMatch(/^src-main\/sync\/bad\.ts:4: SQL text "SELECT record_id FROM sync_outbox"/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds violations in a tree and passes a clean one', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      const write = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        fs.writeFileSync(path.join(root, rel), text);
      };
      write('src-shared/ok.ts', `import { z } from 'zod';\nexport const s = z.string();`);
      write('src-main/server/ok.ts', `import fs from 'node:fs';\nimport { s } from '../../src-shared/ok';\nexport { fs, s };`);
      expect(checkLayers(root).problems).toEqual([]);
      write('src-shared/bad.ts', `import fs from 'node:fs';\nexport { fs };`);
      write('src-renderer/src/bad.tsx', `import { Store } from '../../src-main/store/store';\nexport const B = () => <p>{String(Store)}</p>;`);
      const { problems, files } = checkLayers(root);
      expect(files).toBe(4);
      expect(problems).toHaveLength(2);
      expect(problems.join('\n')).toMatch(/src-shared\/bad\.ts/);
      expect(problems.join('\n')).toMatch(/src-renderer\/src\/bad\.tsx/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('lets the console use zod only for types: the schemas it checks answers with are the contract\'s', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      const write = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        fs.writeFileSync(path.join(root, rel), text);
      };
      write('src-renderer/src/api/ok.ts', `import type { z } from 'zod';\nexport type T = z.ZodType;`);
      expect(checkLayers(root).problems).toEqual([]);
      write('src-renderer/src/api/copy.ts', `import { z } from 'zod';\nexport const page = z.object({ total: z.number() });`);
      expect(checkLayers(root).problems).toEqual([expect.stringMatching(/^src-renderer\/src\/api\/copy\.ts: src-renderer may import zod only as types/)]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds import cycles, but not through imports erased at run time', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      const write = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        fs.writeFileSync(path.join(root, rel), text);
      };
      write('src-main/sync/a.ts', `import { b } from './b';\nexport const a = () => b;`);
      write('src-main/sync/b.ts', `import type { a } from './a';\nexport const b = 1;\nexport type A = typeof a;`);
      write('src-main/sync/c/index.ts', `import { type B } from '../d';\nexport const c = 1 as unknown as B;`);
      write('src-main/sync/d.ts', `import { c } from './c';\nexport type B = number;\nexport const d = c;`);
      expect(checkLayers(root).problems).toEqual([]);
      write('src-main/sync/b.ts', `import { a } from './a';\nexport const b = 1;\nexport const again = () => a;`);
      expect(checkLayers(root).problems).toEqual(['import cycle: src-main/sync/a.ts -> src-main/sync/b.ts -> src-main/sync/a.ts']);
      write('src-main/sync/e.ts', `export * from './f';`);
      write('src-main/sync/f.ts', `export { e } from './g';`);
      write('src-main/sync/g.ts', `import './e';\nexport const e = 1;`);
      expect(checkLayers(root).problems).toContain('import cycle: src-main/sync/e.ts -> src-main/sync/f.ts -> src-main/sync/g.ts -> src-main/sync/e.ts');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses a loop through types inside the store, and allows one elsewhere', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      const write = (rel: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        fs.writeFileSync(path.join(root, rel), text);
      };
      write('src-main/store/statements.ts', `export class Statements {}`);
      write('src-main/store/query/runner.ts', `import type { Statements } from '../statements';\nexport class Runner { constructor(readonly s: Statements) {} }`);
      write('src-main/store/store.ts', `import { Statements } from './statements';\nexport class Store extends Statements {}`);
      write('src-main/sync/a.ts', `import type { B } from './b';\nexport type A = { b?: B };`);
      write('src-main/sync/b.ts', `import type { A } from './a';\nexport type B = { a?: A };`);
      expect(checkLayers(root).problems).toEqual([]);
      write('src-main/store/statements.ts', `import type { Runner } from './query/runner';\nexport class Statements { runner?: Runner }`);
      expect(checkLayers(root).problems).toEqual(['type import cycle in src-main/store: src-main/store/query/runner.ts -> src-main/store/statements.ts -> src-main/store/query/runner.ts']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
