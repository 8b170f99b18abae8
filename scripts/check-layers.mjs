#!/usr/bin/env node
// The layering rule of the architecture, executable: each source folder may import only what
// its environment allows (src-shared: itself and zod; src-main: no Electron outside
// src-main/electron, src-main/preload and the Electron entry; src-renderer: no Node, no
// Electron, no src-main); inside src-main, the layers of MAIN_LAYERS (the store never imports
// the server); SQL only in src-main/store (no better-sqlite3 import, database call or SQL text
// anywhere else in src-main: sqlViolationsOf); no import cycles among the source files
// (imports erased at run time, `import type`, do not count, except inside src-main/store, which
// has no loop even through types); the renderer uses zod only for
// types (the schemas it checks answers with are the contract's). Imports are read with a real
// TypeScript parser (@babel/parser).
import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isBuiltin = (s) => s.startsWith('node:') || BUILTINS.has(s) || BUILTINS.has(s.split('/')[0]);
const pkgName = (s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);

/** The environment of a file (relative path with forward slashes), or null when not checked. */
export function environmentOf(rel) {
  if (rel.startsWith('src-shared/')) return 'shared';
  if (rel === 'src-main/index.ts' || rel.startsWith('src-main/electron/') || rel.startsWith('src-main/preload/')) return 'electron';
  if (rel.startsWith('src-main/')) return 'main';
  if (rel.startsWith('src-renderer/')) return 'renderer';
  return null;
}

/**
 * Layers inside src-main (the rest of src-main is electron/, preload/ and index.ts, which may
 * import all of it): what each folder may import of the others, and which may load SQLite.
 * The store is the bottom (it never imports the server) and the only folder that reaches SQLite:
 * everything else calls its functions (import, export and sync included).
 */
export const MAIN_LAYERS = {
  config: [],
  scan: [],
  store: [],
  instances: ['store'],
  transfer: ['store', 'instances'],
  sync: ['store', 'instances', 'transfer'],
  server: ['store', 'instances', 'transfer', 'sync', 'scan', 'config'],
  cli: ['store', 'instances', 'transfer', 'sync', 'scan', 'config', 'server'],
};
const SQLITE_LAYERS = new Set(['store']);

/** The src-main folder of a path (`store` for src-main/store/db.ts), `cli` for the CLI's entry. */
export function mainLayerOf(rel) {
  if (rel === 'src-main/cli.ts') return 'cli';
  const m = /^src-main\/([^/]+)\//.exec(rel);
  return m && m[1] in MAIN_LAYERS ? m[1] : null;
}

/** Why `spec`, imported by `rel`, breaks the rule; null when allowed. */
export function violation(rel, spec) {
  const env = environmentOf(rel);
  if (!env) return null;
  const layer = env === 'main' ? mainLayerOf(rel) : null;
  if (layer && !spec.startsWith('.') && pkgName(spec) === 'better-sqlite3' && !SQLITE_LAYERS.has(layer)) {
    return `src-main/${layer} may not import better-sqlite3 (only the store opens databases)`;
  }
  if (spec.startsWith('.')) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
    if (layer) {
      const tlayer = mainLayerOf(target.endsWith('.ts') ? target : `${target}.ts`) ?? mainLayerOf(`${target}/`);
      if (tlayer && tlayer !== layer && !MAIN_LAYERS[layer].includes(tlayer)) {
        return `src-main/${layer} may not import src-main/${tlayer} (${spec}); it may import ${MAIN_LAYERS[layer].length ? MAIN_LAYERS[layer].map((l) => `src-main/${l}`).join(', ') : 'no other folder of src-main'}`;
      }
    }
    const tenv = environmentOf(target.endsWith('.ts') || target.endsWith('.tsx') ? target : `${target}.ts`) ?? environmentOf(`${target}/`);
    if (tenv === null) return `imports ${spec} from outside the source folders`;
    if (tenv === 'shared') return null;
    if (env === 'shared') return `src-shared may import only itself and zod (got ${spec})`;
    if (env === 'renderer' && tenv !== 'renderer') return `src-renderer may not import ${tenv === 'main' || tenv === 'electron' ? 'src-main' : tenv} (${spec})`;
    if ((env === 'main' || env === 'electron') && tenv === 'renderer') return `src-main may not import src-renderer (${spec})`;
    if (env === 'main' && tenv === 'electron') return `src-main outside src-main/electron may not import Electron code (${spec})`;
    return null;
  }
  const name = pkgName(spec);
  if (env === 'shared') return name === 'zod' ? null : `src-shared may import only itself and zod (got ${spec})`;
  if (name === 'electron') return env === 'electron' ? null : `${env === 'renderer' ? 'src-renderer' : 'src-main'} may not import electron`;
  if (env === 'renderer' && isBuiltin(spec)) return `src-renderer may not import Node built-ins (${spec})`;
  if ((env === 'main' || env === 'electron') && (name === 'react' || name === 'react-dom' || name === 'zustand')) return `src-main may not import ${name}`;
  return null;
}

/** Calls `visit` on each child node of a Babel AST node (positions and extra data skipped). */
function visitChildren(node, visit) {
  for (const key of Object.keys(node)) {
    if (key === 'loc' || key === 'start' || key === 'end' || key === 'extra') continue;
    const v = node[key];
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object' && typeof v.type === 'string') visit(v);
  }
}

/** Every module specifier a file imports: static, re-exported, dynamic import() and require(). */
export function importsOf(file, source) {
  return importRecordsOf(file, source).map((r) => r.spec);
}

/** The same, each with whether it is erased at run time (`import type`, `export type`, all-type specifiers). */
export function importRecordsOf(file, source) {
  const ast = parse(source, {
    sourceType: 'module',
    sourceFilename: file,
    plugins: file.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'],
  });
  const specs = [];
  const typeOnly = (node) =>
    node.importKind === 'type' ||
    node.exportKind === 'type' ||
    (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration':
        if (node.source?.value) specs.push({ spec: node.source.value, typeOnly: typeOnly(node) });
        break;
      case 'ImportExpression':
        if (node.source?.type === 'StringLiteral') specs.push({ spec: node.source.value, typeOnly: false });
        break;
      case 'CallExpression': {
        const arg = node.arguments?.[0];
        const isImport = node.callee?.type === 'Import';
        const isRequire = node.callee?.type === 'Identifier' && node.callee.name === 'require';
        if ((isImport || isRequire) && arg?.type === 'StringLiteral') specs.push({ spec: arg.value, typeOnly: false });
        break;
      }
    }
    visitChildren(node, visit);
  };
  visit(ast.program);
  return specs;
}

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') yield* walk(p);
    } else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** The source file a relative import names (`./a` is a.ts, a.tsx or a/index.ts), or null. */
function resolveRelative(root, rel, spec) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const full = path.join(root, c);
    if (/\.tsx?$/.test(c) && fs.existsSync(full) && fs.statSync(full).isFile()) return c;
  }
  return null;
}

/** Import cycles among the files (run-time imports only), each as `a -> b -> a`. Tarjan's algorithm. */
export function cyclesOf(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const cycles = [];
  const connect = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) !== idx.get(v)) return;
    const scc = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(pathThrough(graph, new Set(scc), [...scc].sort()[0]));
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) connect(v);
  return cycles;
}

/** One shortest cycle from `start` inside a strongly connected set, for the message. */
function pathThrough(graph, members, start) {
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const chain = [];
        for (let x = v; x !== null; x = prev.get(x)) chain.unshift(x);
        return [...chain, start].join(' -> ');
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...members].join(' -> ');
}

/** Calls that reach SQLite whatever they are called on (better-sqlite3's Database and Statement). */
const SQL_CALLS = new Set(['prepare', 'pragma', 'transaction', 'unsafeMode', 'backup', 'loadExtension', 'function', 'aggregate', 'serialize']);

/**
 * Upper-case SQL statements in a string or template literal's text: SELECT … FROM (or SELECT of
 * a value), INSERT INTO, UPDATE x SET, DELETE FROM, PRAGMA, CREATE/DROP TABLE|INDEX|TRIGGER|VIEW,
 * a transaction statement that starts the text (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE) and
 * WITH x AS (…). Case matters: a help text saying "Select all matching" is not SQL.
 */
const SQL_TEXT = new RegExp(
  [
    String.raw`\bSELECT\b[\s\S]*\bFROM\b`,
    String.raw`\bSELECT\s+(?:COUNT|MAX|MIN|SUM|DISTINCT|\d|\*|\?)`,
    String.raw`\bINSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\b`,
    String.raw`\bUPDATE\s+\S+\s+SET\b`,
    String.raw`\bDELETE\s+FROM\b`,
    String.raw`\bPRAGMA\s`,
    String.raw`\b(?:CREATE|DROP)\s+(?:TEMP\s+|TEMPORARY\s+|UNIQUE\s+|VIRTUAL\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)\b`,
    String.raw`^\s*(?:BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b`,
    String.raw`\bWITH\s+(?:RECURSIVE\s+)?[A-Za-z_]\w*(?:\s*\([^)]*\))?\s+AS\s*\(`,
  ].join('|'),
);

/** Whether a file may hold SQL: the store, and src-shared's declarations (computed fields, sort keys) the store compiles. */
export function mayHoldSql(rel) {
  return !rel.startsWith('src-main/') || rel.startsWith('src-main/store/');
}

/**
 * Where a file of src-main outside the store holds SQL (see SQL_CALLS and SQL_TEXT; any import of
 * better-sqlite3, types included), each as `file:line: what`. Everything else reaches SQLite
 * through functions of src-main/store.
 */
export function sqlViolationsOf(rel, source) {
  if (mayHoldSql(rel)) return [];
  const ast = parse(source, {
    sourceType: 'module',
    sourceFilename: rel,
    plugins: rel.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'],
  });
  const found = [];
  const at = (node, what) => found.push(`${rel}:${node.loc?.start.line ?? 0}: ${what} (SQL belongs in src-main/store; call a store function instead)`);
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration':
        if (node.source?.value && pkgName(node.source.value) === 'better-sqlite3') at(node, 'imports better-sqlite3');
        break;
      case 'TSImportType': {
        const arg = node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument;
        if (arg?.type === 'StringLiteral' && pkgName(arg.value) === 'better-sqlite3') at(node, 'imports better-sqlite3 types');
        break;
      }
      case 'TSImportEqualsDeclaration': {
        const ref = node.moduleReference?.expression;
        if (ref?.type === 'StringLiteral' && pkgName(ref.value) === 'better-sqlite3') at(node, 'loads better-sqlite3');
        break;
      }
      case 'ImportExpression':
      case 'CallExpression':
      case 'OptionalCallExpression': {
        const ref = node.type === 'ImportExpression' ? node.source : node.callee?.type === 'Identifier' && ['require', 'import'].includes(node.callee.name) ? node.arguments?.[0] : null;
        if (ref?.type === 'StringLiteral' && pkgName(ref.value) === 'better-sqlite3') at(node, 'loads better-sqlite3');
        if (node.callee?.type === 'Import' && node.arguments?.[0]?.type === 'StringLiteral' && pkgName(node.arguments[0].value) === 'better-sqlite3') at(node, 'loads better-sqlite3');
        const callee = node.callee;
        if ((callee?.type === 'MemberExpression' || callee?.type === 'OptionalMemberExpression') && !callee.computed && SQL_CALLS.has(callee.property?.name)) {
          at(node, `calls .${callee.property.name}()`);
        }
        break;
      }
      case 'StringLiteral':
        if (SQL_TEXT.test(node.value)) at(node, `SQL text ${JSON.stringify(node.value.slice(0, 40))}`);
        break;
      case 'TemplateLiteral': {
        const text = node.quasis.map((q) => q.value.cooked ?? q.value.raw).join('?');
        if (SQL_TEXT.test(text)) at(node, `SQL text ${JSON.stringify(text.trim().slice(0, 40))}`);
        break;
      }
    }
    visitChildren(node, visit);
  };
  visit(ast.program);
  return found;
}

/**
 * The console keeps no copies of the server's schemas: the answers it reads are checked by the
 * typed client against the contract (src-shared), so src-renderer uses zod only for types.
 */
export function ownSchemas(rel, spec) {
  return environmentOf(rel) === 'renderer' && pkgName(spec) === 'zod' ? 'src-renderer may import zod only as types (the schemas are the contract\'s, in src-shared)' : null;
}

export function checkLayers(root) {
  const problems = [];
  const graph = new Map();
  // The store's own files with type-only imports too: the store has no loop even at the type level.
  const storeGraph = new Map();
  let files = 0;
  for (const top of ['src-shared', 'src-main', 'src-renderer']) {
    const dir = path.join(root, top);
    if (!fs.existsSync(dir)) continue;
    for (const file of walk(dir)) {
      files++;
      const rel = path.relative(root, file).split(path.sep).join('/');
      const edges = [];
      const typed = [];
      const source = fs.readFileSync(file, 'utf8');
      for (const v of sqlViolationsOf(rel, source)) problems.push(v);
      for (const { spec, typeOnly } of importRecordsOf(file, source)) {
        const why = violation(rel, spec) ?? (typeOnly ? null : ownSchemas(rel, spec));
        if (why) problems.push(`${rel}: ${why}`);
        if (spec.startsWith('.')) {
          const target = resolveRelative(root, rel, spec);
          if (target && !typeOnly) edges.push(target);
          if (target?.startsWith('src-main/store/')) typed.push(target);
        }
      }
      graph.set(rel, edges);
      if (rel.startsWith('src-main/store/')) storeGraph.set(rel, typed);
    }
  }
  const cycles = cyclesOf(graph);
  for (const c of cycles) problems.push(`import cycle: ${c}`);
  for (const c of cyclesOf(storeGraph)) if (!cycles.includes(c)) problems.push(`type import cycle in src-main/store: ${c}`);
  return { files, problems };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? '.');
  const { files, problems } = checkLayers(root);
  for (const p of problems) console.error(`layering: ${p}`);
  console.log(`layering: ${files} files checked, ${problems.length} violation${problems.length === 1 ? '' : 's'}`);
  process.exit(problems.length ? 1 : 0);
}
