#!/usr/bin/env node
// The layering rule of the architecture, executable: each source folder may import only what
// its environment allows (src-shared: itself and zod; src-main: no Electron outside
// src-main/electron, src-main/preload and the Electron entry; src-renderer: no Node, no
// Electron, no src-main); inside src-main, the layers of MAIN_LAYERS (the store never imports
// the server, routes never load better-sqlite3); and no import cycles among the source files
// (imports erased at run time, `import type`, do not count); the renderer uses zod only for
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
 * The store is the bottom (it never imports the server); the server's routes call the store and
 * never touch better-sqlite3; only the store and the transfer engine (its own connections) do.
 */
export const MAIN_LAYERS = {
  config: [],
  scan: [],
  store: [],
  public: ['store'],
  instances: ['store'],
  transfer: ['store', 'public', 'instances'],
  sync: ['store', 'instances', 'transfer'],
  server: ['store', 'public', 'instances', 'transfer', 'sync', 'scan', 'config'],
  cli: ['store', 'public', 'instances', 'transfer', 'sync', 'scan', 'config', 'server'],
};
const SQLITE_LAYERS = new Set(['store', 'transfer']);

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
    return `src-main/${layer} may not import better-sqlite3 (only the store and the transfer engine open databases)`;
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
    for (const key of Object.keys(node)) {
      if (key === 'loc' || key === 'start' || key === 'end' || key === 'extra') continue;
      const v = node[key];
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object' && typeof v.type === 'string') visit(v);
    }
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
  let files = 0;
  for (const top of ['src-shared', 'src-main', 'src-renderer']) {
    const dir = path.join(root, top);
    if (!fs.existsSync(dir)) continue;
    for (const file of walk(dir)) {
      files++;
      const rel = path.relative(root, file).split(path.sep).join('/');
      const edges = [];
      for (const { spec, typeOnly } of importRecordsOf(file, fs.readFileSync(file, 'utf8'))) {
        const why = violation(rel, spec) ?? (typeOnly ? null : ownSchemas(rel, spec));
        if (why) problems.push(`${rel}: ${why}`);
        if (!typeOnly && spec.startsWith('.')) {
          const target = resolveRelative(root, rel, spec);
          if (target) edges.push(target);
        }
      }
      graph.set(rel, edges);
    }
  }
  for (const c of cyclesOf(graph)) problems.push(`import cycle: ${c}`);
  return { files, problems };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? '.');
  const { files, problems } = checkLayers(root);
  for (const p of problems) console.error(`layering: ${p}`);
  console.log(`layering: ${files} files checked, ${problems.length} violation${problems.length === 1 ? '' : 's'}`);
  process.exit(problems.length ? 1 : 0);
}
