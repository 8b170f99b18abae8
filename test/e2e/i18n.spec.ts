// Both languages are complete: the same keys (plural keys in the forms each language needs),
// no empty strings, the same interpolation variables (a plural form only those of the general form).
import { fieldsOf, RESOURCES } from '../../src-shared/resources/index';
import { EN as en, RU as ru } from '../../src-renderer/src/i18n/catalog';
import { expect, test } from './fixtures';

type Tree = { [k: string]: string | Tree };
const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(t: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(t)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

function check(lang: 'en' | 'ru', strings: Map<string, string>, base: Map<string, string>) {
  const forms = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
  const baseKeys = new Set([...base.keys()].map((k) => k.replace(PLURAL, '')));
  const keys = new Set([...strings.keys()].map((k) => k.replace(PLURAL, '')));
  expect([...keys].sort()).toEqual([...baseKeys].sort());
  for (const k of keys) {
    const plural = [...strings.keys()].filter((x) => x.replace(PLURAL, '') === k && PLURAL.test(x));
    if (plural.length) for (const f of forms) expect(strings.has(`${k}_${f}`), `${lang}: ${k}_${f}`).toBe(true);
  }
  for (const [k, v] of strings) {
    expect(v.trim(), `${lang}: ${k}`).not.toBe('');
    if (PLURAL.test(k)) {
      // A plural form uses only the variables of the base language's general form, and the general
      // forms use the same: a form for one may leave the number out where it only ever means 1
      // (English), and must keep it where it also means 21, 101... (Russian).
      const other = base.get(k.replace(PLURAL, '_other'));
      if (other === undefined) continue;
      for (const x of vars(v)) expect(vars(other), `${lang}: ${k} uses {{${x}}}`).toContain(x);
      if (k.endsWith('_other')) expect(vars(v), `${lang}: ${k}`).toEqual(vars(other));
    } else {
      const b = base.get(k);
      if (b !== undefined) expect(vars(v), `${lang}: ${k}`).toEqual(vars(b));
    }
  }
}

test('English and Russian have the same strings, with every plural form and the same variables', () => {
  const e = flatten(en);
  const r = flatten(ru);
  check('en', e, e);
  check('ru', r, e);
  // Status names and risk bands are translated, not copied.
  for (const k of [...e.keys()].filter((k) => k.startsWith('status.') || k.startsWith('risk.'))) expect(r.get(k)).not.toBe(e.get(k));
});

test('no two fields of a resource, and no two columns of the incident list, share a label in either language', () => {
  for (const [lang, catalog] of [['en', flatten(en)], ['ru', flatten(ru)]] as const) {
    const label = (name: string) => catalog.get(`fields.${name}`) ?? name;
    for (const r of RESOURCES) {
      const labels = fieldsOf(r).map((f) => label(f.name));
      const twice = labels.filter((l, i) => labels.indexOf(l) !== i);
      expect(twice, `${lang}: ${r.name}`).toEqual([]);
    }
    // The incident list's own columns, as the columns dialog lists them.
    const incidentColumns = ['title', 'status', 'risk', 'asset', 'owner', 'group', 'finding', 'created_at', 'updated_at', 'acknowledged_at', 'reopened_at', 'alert_type', 'c_occurrence_count', 'c_reopened_count', 'immediate_action_score', 'external', 'customer_created', 'itsm_sync_status'].map(label);
    expect(new Set(incidentColumns).size, `${lang}: ${incidentColumns.join(', ')}`).toBe(incidentColumns.length);
  }
});
