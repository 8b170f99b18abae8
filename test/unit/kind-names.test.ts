// A record kind owns its behaviour: the server and the shared code read a kind's behaviour from its
// module (src-main/store/kinds) and name it through the module or its declaration (`K.<kind>`),
// never by a literal kind name (a literal name is a table keyed by name waiting to happen). A
// kind with behaviour of its own is named in code only by its module, its declaration, the
// registries and the contract's generated files. Prose may name kinds: comments, help texts,
// descriptions and messages.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from '@babel/parser';
import { describe, expect, it } from 'vitest';
import { genericOperationsOf, namedOperations, publicOperations, type OperationDef } from '../../src-shared/contract/index';
import { getResource, RESOURCES } from '../../src-shared/resources/index';
import { handledOperations, KINDS, kindOf, NETWORK_INTERFACES, originLists, platformMadeOf, PLATFORM_MADE } from '../../src-main/store/kinds/index';
import { handlerOf } from '../../src-main/server/routes/named';

const ROOT = path.resolve(__dirname, '../..');

/** Where kinds are named only through their modules and declarations. */
const AREA = ['src-main', 'src-shared'];

/** Files that name every kind: the registries and the contract's generated files. */
const REGISTRIES = ['src-shared/resources/kinds.ts', 'src-shared/resources/index.ts', 'src-shared/client/contract-types.ts'];

/** Files naming a kind's word in code for another meaning, and why. */
const ALLOWED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  rules: {
    'src-main/store/compliance/check.ts': "a compliance check's list of the rules it checks, and its progress phase 'rules'",
    'src-shared/compliance/check.ts': 'the rules a compliance check runs (a parameter)',
    'src-shared/schemas/compliance.ts': "the contract's field `rules` of a compliance check's summary and plan",
    'src-main/cli/compliance.ts': "the field `rules` of a compliance check's answer, and the check's progress phase 'rules'",
  },
  findings: {
    'src-shared/public/entities.ts': "the public API's path `findings` (its list of finding types) and the console's route of that name",
    'src-shared/client/index.ts': "the typed client's `public.findings()`: the public API's list of that path",
  },
};

/** The kinds with behaviour of their own: every module's, and those with a lookup. */
const NAMES = [...new Set([...KINDS.map((k) => k.resource.name), NETWORK_INTERFACES.name])];

const files = (): string[] =>
  execFileSync('git', ['ls-files', '--', ...AREA], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.tsx?$/.test(f) && !REGISTRIES.includes(f) && fs.existsSync(path.join(ROOT, f)));

/**
 * The kind modules' folder: a file directly in it is a module (but the registry index.ts and the
 * types); a file in a subfolder belongs to the module of the subfolder's index.ts.
 */
const KINDS_DIR = 'src-main/store/kinds/';

/** The kinds a file may name: its own when it is a kind's declaration or (part of) a kind's module. */
async function ownKindsOf(file: string): Promise<Set<string>> {
  const own = new Set<string>();
  const decl = /^src-shared\/resources\/([a-z_]+)\.ts$/.exec(file);
  const declared = decl?.[1];
  if (declared && RESOURCES.some((r) => r.name === declared)) own.add(declared);
  if (file.startsWith(KINDS_DIR) && file !== `${KINDS_DIR}index.ts` && file !== `${KINDS_DIR}types.ts`) {
    const rest = file.slice(KINDS_DIR.length);
    const moduleFile = rest.includes('/') ? `${KINDS_DIR}${rest.split('/')[0]}/index.ts` : file;
    const exported = await import(path.join(ROOT, moduleFile));
    for (const value of Object.values(exported)) {
      if (KINDS.includes(value as never)) own.add((value as (typeof KINDS)[number]).resource.name);
      if (value === NETWORK_INTERFACES) own.add(NETWORK_INTERFACES.name);
    }
  }
  return own;
}

/**
 * SQL in a string: code, whatever its spaces (upper-case statements and clauses, as the store
 * writes them).
 */
const SQL = /\b(?:SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|JOIN|CREATE|DROP|PRAGMA|INDEXED BY|ON CONFLICT)\b/;

/**
 * Prose in a string: words separated by a space (a help text, a description, a message), unless
 * it is SQL. A kind's name alone, an operationId, a path or an identifier holds no space.
 */
const isProse = (text: string): boolean => /[A-Za-z]{2,}[,.:;)]? [`'"(]?[A-Za-z]{2,}/.test(text) && !SQL.test(text);

/** The source with its comments and prose strings blanked (lines kept), read with a TypeScript parser. */
function withoutProse(src: string): string {
  const ast = parse(src, { sourceType: 'module', plugins: ['typescript', 'jsx'] });
  const units = src.split(''); // UTF-16 units, as the parser's offsets count
  const blank = (start: number, end: number) => {
    for (let i = start; i < end; i++) if (units[i] !== '\n') units[i] = ' ';
  };
  for (const c of ast.comments ?? []) blank(c.start!, c.end!);
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    const n = node as { type?: string; start?: number; end?: number; value?: unknown; quasis?: { start: number; end: number }[] };
    if (n.type === 'StringLiteral' && typeof n.value === 'string' && isProse(n.value)) blank(n.start!, n.end!);
    // a template's text read whole, each interpolation standing for a word
    if (n.type === 'TemplateLiteral' && isProse(n.quasis!.map((t) => src.slice(t.start, t.end)).join(' xx ').replace(/\s+/g, ' '))) for (const t of n.quasis!) blank(t.start, t.end);
    if (n.type === 'JSXText' && isProse(String(n.value))) blank(n.start!, n.end!);
    for (const [key, value] of Object.entries(n)) {
      if (key !== 'loc' && key !== 'extra' && key !== 'comments' && key !== 'leadingComments' && key !== 'trailingComments' && key !== 'innerComments') visit(value);
    }
  };
  visit(ast.program);
  return units.join('');
}

const codeOf = (file: string): string => withoutProse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

/** Where `name` stands as a word (as `git grep -w` finds it), as `file:line`. */
function namings(name: string, file: string, code: string): string[] {
  const re = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`);
  return code.split('\n').flatMap((line, i) => (re.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe('kind names', () => {
  it('finds a literal name in code and not in a comment or a help text', () => {
    const code = [
      '// service_asset_findings in a comment',
      "const t = 'service_asset_findings';",
      '/* rules */ const x = create_service_asset_findings;',
      "const help = 'Searches service_asset_findings by status';",
      "const sql = 'SELECT id FROM service_asset_findings WHERE x';",
      'const re = /^engine_go_rules\\./;',
      'const p = `#{B}/service_asset_findings/search`;',
      'const d = `the rules of #{x} as service_assets have them`;',
      'const e = `#{n} rules, #{m} agents`;',
    ]
      .join('\n')
      .replaceAll('#{', '${'); // a template's interpolation, written #{…} above
    const text = withoutProse(code);
    expect(namings('service_asset_findings', 'x.ts', text)).toEqual([
      "x.ts:2: const t = 'service_asset_findings';",
      "x.ts:5: const sql = 'SELECT id FROM service_asset_findings WHERE x';",
      'x.ts:7: const p = `#{B}/service_asset_findings/search`;'.replace('#{', '${'),
    ]);
    expect(namings('engine_go_rules', 'x.ts', text)).toEqual(['x.ts:6: const re = /^engine_go_rules\\./;']);
    expect(namings('service_assets', 'x.ts', text)).toEqual([]);
    expect(namings('rules', 'x.ts', text)).toEqual([]);
    expect(namings('agents', 'x.ts', text)).toEqual([]);
  });

  it('the server and the shared code name no kind with behaviour outside its module, its declaration and the registries', async () => {
    const list = files();
    expect(list.length).toBeGreaterThan(200);
    const found: string[] = [];
    const anyName = new RegExp(`(?<![A-Za-z0-9_])(?:${NAMES.join('|')})(?![A-Za-z0-9_])`);
    for (const file of list) {
      // parsed only when the text names a kind at all (comments and prose included)
      if (!anyName.test(fs.readFileSync(path.join(ROOT, file), 'utf8'))) continue;
      const text = codeOf(file);
      const own = await ownKindsOf(file);
      for (const name of NAMES) {
        if (own.has(name) || ALLOWED[name]?.[file]) continue;
        found.push(...namings(name, file, text));
      }
    }
    expect(found).toEqual([]);
  });

  it('a declaration and a kind module may name their own kind only', async () => {
    expect([...(await ownKindsOf('src-shared/resources/service_asset_findings.ts'))]).toEqual(['service_asset_findings']);
    expect([...(await ownKindsOf('src-main/store/kinds/incidents/kept.ts'))]).toEqual(['service_asset_findings']);
    expect([...(await ownKindsOf('src-main/store/kinds/rule.ts'))]).toEqual(['rules']);
    expect([...(await ownKindsOf('src-main/store/kinds/index.ts'))]).toEqual([]);
    expect([...(await ownKindsOf('src-main/sync/push.ts'))]).toEqual([]);
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

  it("the origin's lists come from the modules, in reference order, each key once", () => {
    const lists = originLists();
    expect(lists.length).toBeGreaterThan(0);
    expect(new Set(lists.map((l) => l.key)).size).toBe(lists.length);
    const at = new Map(lists.map((l, i) => [l.resource, i]));
    for (const [i, l] of lists.entries()) {
      expect(kindOf(l.resource)?.sync?.list).toBeDefined();
      // every reference a listed record holds to another listed kind points at an earlier list
      for (const def of Object.values(getResource(l.resource).fields)) {
        if (def.ref && def.ref !== l.resource && at.has(def.ref)) expect(at.get(def.ref)!, `${l.resource} -> ${def.ref}`).toBeLessThan(i);
      }
      if (l.relatedBy) expect(getResource(l.resource).fields[l.relatedBy]?.ref, l.resource).toBeDefined();
    }
  });

  it('a named operation that replaces a generic one says so, and the generic one is not served', () => {
    const named = (Object.values(namedOperations()) as OperationDef[]).filter((op) => op.replaces);
    expect(named.length).toBeGreaterThan(0);
    for (const op of named) {
      const kind = op.operationId.split('.')[0]!;
      expect(RESOURCES.some((r) => r.name === kind), op.operationId).toBe(true);
      // the named endpoint takes the generic one's operationId and address; the generic one is gone
      expect(op.operationId).toBe(`${kind}.${op.replaces}`);
      expect(genericOperationsOf(kind).map((g) => g.operationId), op.operationId).not.toContain(op.operationId);
    }
  });
});
