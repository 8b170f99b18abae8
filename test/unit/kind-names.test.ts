// A record kind owns its behaviour: the store (its write path, query pipeline, compliance reads),
// sync and the named and public routes read a kind's behaviour from its module (src-main/store/kinds)
// and name it through the module or its declaration, never by a literal kind name. Comments may
// name kinds; code may not (a literal name is a table keyed by name waiting to happen).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from '@babel/parser';
import { describe, expect, it } from 'vitest';
import { namedOperations, publicOperations } from '../../src-shared/contract/index';
import { handledOperations, KINDS, kindOf, NETWORK_INTERFACES, platformMadeOf, PLATFORM_MADE } from '../../src-main/store/kinds/index';
import { handlerOf } from '../../src-main/server/routes/named';

const ROOT = path.resolve(__dirname, '../..');

/** Where kinds are named only through their modules (the kind modules themselves aside). */
const AREA = ['src-main/store', 'src-main/sync', 'src-main/server/routes/named.ts', 'src-main/server/routes/public.ts'];
/** Inside the area but not held to it: the demo data (named through the declarations by its own change). */
const OUTSIDE = [/^src-main\/store\/kinds\//, /^src-main\/store\/seed\.ts$/];

/** Files naming a kind's word in code for another meaning, and why. */
const ALLOWED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  rules: { 'src-main/store/compliance/check.ts': "a compliance check's list of the rules it checks, and its progress phase 'rules'" },
};

/** The kinds with behaviour of their own: every module's, and those with a lookup. */
const NAMES = [...new Set([...KINDS.map((k) => k.resource.name), NETWORK_INTERFACES.name])];

const files = (): string[] =>
  execFileSync('git', ['ls-files', '--', ...AREA], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.tsx?$/.test(f) && !OUTSIDE.some((re) => re.test(f)));

/** The source with its comments blanked (lines kept), read with a TypeScript parser. */
function withoutComments(src: string): string {
  const ast = parse(src, { sourceType: 'module', plugins: ['typescript', 'jsx'] });
  const units = src.split(''); // UTF-16 units, as the parser's offsets count
  for (const c of ast.comments ?? []) for (let i = c.start!; i < c.end!; i++) if (units[i] !== '\n') units[i] = ' ';
  return units.join('');
}

const codeOf = (file: string): string => withoutComments(fs.readFileSync(path.join(ROOT, file), 'utf8'));

/** Where `name` stands as a word (as `git grep -w` finds it), as `file:line`. */
function namings(name: string, file: string, code: string): string[] {
  const re = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`);
  return code.split('\n').flatMap((line, i) => (re.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe('kind names', () => {
  it('finds a literal name in code and not in a comment', () => {
    const code = "// service_asset_findings in a comment\nconst t = 'service_asset_findings';\n/* rules */ const x = create_service_asset_findings;";
    expect(namings('service_asset_findings', 'x.ts', withoutComments(code))).toEqual(["x.ts:2: const t = 'service_asset_findings';"]);
  });

  it('the store, sync and the named and public routes name no kind with behaviour outside its module', () => {
    const list = files();
    expect(list.length).toBeGreaterThan(50);
    const code = new Map(list.map((f) => [f, codeOf(f)]));
    const found: string[] = [];
    for (const name of NAMES) {
      for (const [file, text] of code) {
        if (ALLOWED[name]?.[file]) continue;
        found.push(...namings(name, file, text));
      }
    }
    expect(found).toEqual([]);
  });

  it('every allowed exception still names the word (an exception that no longer applies is removed)', () => {
    for (const [name, byFile] of Object.entries(ALLOWED)) {
      for (const file of Object.keys(byFile)) expect(namings(name, file, codeOf(file)).length, `${name} in ${file}`).toBeGreaterThan(0);
    }
  });
});

describe('kind modules', () => {
  it('every named operation of the contract has a kind module handling it, and every handler an operation', () => {
    for (const op of Object.values(namedOperations())) expect(() => handlerOf(op)).not.toThrow();
    const declared = new Set<string>([...Object.values(namedOperations()), ...Object.values(publicOperations())].map((op) => op.operationId));
    expect(handledOperations().filter((id) => !declared.has(id))).toEqual([]);
  });

  it('each module is found by its declaration and by its name; a kind without behaviour has none', () => {
    for (const k of KINDS) {
      expect(kindOf(k.resource)).toBe(k);
      expect(kindOf(k.resource.name)).toBe(k);
    }
    expect(kindOf(NETWORK_INTERFACES)).toBeUndefined();
  });

  it('the platform-made rows are declared by their module, with a parent kind of the registry', () => {
    expect(PLATFORM_MADE.length).toBeGreaterThan(0);
    for (const made of PLATFORM_MADE) {
      expect(platformMadeOf(made.resource)).toBe(made);
      expect(kindOf(made.parent)?.sync?.fieldOperations?.[made.parentField]).toBeDefined();
    }
  });
});
