#!/usr/bin/env node
// The layering rule of the architecture, executable: each source folder may import only what
// its environment allows (src-shared: itself and zod; src-main: no Electron outside
// src-main/electron, src-main/preload and the Electron entry; src-renderer: no Node, no
// Electron, no src-main). Imports are read with a real TypeScript parser (oxc-parser).
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

/** Why `spec`, imported by `rel`, breaks the rule; null when allowed. */
export function violation(rel, spec) {
  const env = environmentOf(rel);
  if (!env) return null;
  if (spec.startsWith('.')) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
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
  const ast = parse(source, {
    sourceType: 'module',
    sourceFilename: file,
    plugins: file.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'],
  });
  const specs = [];
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration':
        if (node.source?.value) specs.push(node.source.value);
        break;
      case 'ImportExpression':
        if (node.source?.type === 'StringLiteral') specs.push(node.source.value);
        break;
      case 'CallExpression': {
        const arg = node.arguments?.[0];
        const isImport = node.callee?.type === 'Import';
        const isRequire = node.callee?.type === 'Identifier' && node.callee.name === 'require';
        if ((isImport || isRequire) && arg?.type === 'StringLiteral') specs.push(arg.value);
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

export function checkLayers(root) {
  const problems = [];
  let files = 0;
  for (const top of ['src-shared', 'src-main', 'src-renderer']) {
    const dir = path.join(root, top);
    if (!fs.existsSync(dir)) continue;
    for (const file of walk(dir)) {
      files++;
      const rel = path.relative(root, file).split(path.sep).join('/');
      for (const spec of importsOf(file, fs.readFileSync(file, 'utf8'))) {
        const why = violation(rel, spec);
        if (why) problems.push(`${rel}: ${why}`);
      }
    }
  }
  return { files, problems };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? '.');
  const { files, problems } = checkLayers(root);
  for (const p of problems) console.error(`layering: ${p}`);
  console.log(`layering: ${files} files checked, ${problems.length} violation${problems.length === 1 ? '' : 's'}`);
  process.exit(problems.length ? 1 : 0);
}
