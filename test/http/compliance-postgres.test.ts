// The compliance check's verdicts against PostgreSQL's own `@@`: the demo database plus a
// generated data set (bench/compliance-data.ts: 3,000 software records, some with a stored
// tsvector, 400 assets, rules using every tsquery operator) are checked over HTTP, then the same
// software, links, groups and rules are loaded into PostgreSQL 15, which computes each record's
// vector (its stored tsvector, else to_tsvector('simple', name || ' ' || version)) and each
// (rule set, rule, asset)'s matching software with `@@`. Every verdict, every list of deciding
// software and every refused rule must be equal. Skipped, saying so, where PostgreSQL is absent
// (required in CI). Rule validation is compared too: generated queries, valid and invalid, sent to
// POST /rules/create and PUT /rules/update are refused exactly when to_tsquery('simple', q) raises.
import crypto from 'node:crypto';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeComplianceData } from '../../bench/compliance-data';
import { announceMissing, connectPostgres, POSTGRES_REQUIRED } from '../helpers/postgres';
import { startTestServer, type TestServer } from '../helpers/server';

const ref = await connectPostgres();
if (!ref.client) announceMissing('compliance verdicts', ref.why);

let srv: TestServer;
let generatedSets: string[] = [];

beforeAll(async () => {
  if (!ref.client && !POSTGRES_REQUIRED) return;
  srv = await startTestServer({ seed: 'demo' });
  const data = writeComplianceData(srv.store.db, { seed: 24, software: 3000, assets: 400, perAsset: 40, groups: 8, ruleSets: 6, rules: 80 });
  generatedSets = data.ruleSetIds;
}, 180_000);

afterAll(async () => {
  await srv?.stop();
  await ref.client?.end();
});

/** PostgreSQL's verdicts for every (set, rule, asset) of the database's rule sets, and the rules it refuses. */
async function postgresVerdicts(db: pg.Client, s: TestServer): Promise<{ verdicts: Map<string, string>; refused: Set<string> }> {
  const all = <T>(sql: string) => s.store.all<T>(sql);
  const software = all<{ id: string; name: string; version: string | null; tsvector: string | null }>('SELECT id, name, version, tsvector FROM software');
  const links = all<{ s: string; a: string }>('SELECT software_id AS s, service_asset_id AS a FROM service_asset_software');
  const members = all<{ a: string; g: string }>('SELECT service_asset_id AS a, service_asset_group_id AS g FROM service_asset_group_members');
  const setGroups = all<{ g: string; r: string }>('SELECT service_asset_group_id AS g, rule_set_id AS r FROM rule_set_asset_groups');
  const setRules = all<{ r: string; s: string }>('SELECT rule_id AS r, rule_set_id AS s FROM rule_set_rules');
  const rules = all<{ id: string; query: string; b: number | null }>('SELECT id, query, blacklist_entry AS b FROM rules');

  await db.query(`create function pg_temp.safe_v(t text) returns tsvector language plpgsql as $f$ begin return t::tsvector; exception when others then return ''::tsvector; end $f$`);
  await db.query(`create function pg_temp.safe_q(q text) returns tsquery language plpgsql as $f$ begin return to_tsquery('simple', q); exception when others then return null; end $f$`);
  await db.query(`create temp table sw (id text primary key, name text, version text, stored text)`);
  await db.query(`create temp table links (s text, a text)`);
  await db.query(`create temp table members (a text, g text)`);
  await db.query(`create temp table set_groups (g text, r text)`);
  await db.query(`create temp table set_rules (r text, s text)`);
  await db.query(`create temp table rl (id text primary key, query text, blacklist boolean)`);
  const load = async (sql: string, cols: unknown[][]) => {
    const size = 20_000;
    for (let i = 0; i < cols[0]!.length; i += size) await db.query(sql, cols.map((c) => c.slice(i, i + size)));
  };
  await load(`insert into sw select * from unnest($1::text[], $2::text[], $3::text[], $4::text[])`, [software.map((r) => r.id), software.map((r) => r.name), software.map((r) => r.version), software.map((r) => r.tsvector)]);
  await load(`insert into links select * from unnest($1::text[], $2::text[])`, [links.map((r) => r.s), links.map((r) => r.a)]);
  await load(`insert into members select * from unnest($1::text[], $2::text[])`, [members.map((r) => r.a), members.map((r) => r.g)]);
  await load(`insert into set_groups select * from unnest($1::text[], $2::text[])`, [setGroups.map((r) => r.g), setGroups.map((r) => r.r)]);
  await load(`insert into set_rules select * from unnest($1::text[], $2::text[])`, [setRules.map((r) => r.r), setRules.map((r) => r.s)]);
  await load(`insert into rl select * from unnest($1::text[], $2::text[], $3::boolean[])`, [rules.map((r) => r.id), rules.map((r) => r.query), rules.map((r) => r.b === 1)]);
  // The record's vector, as the README states it; the rule's query as to_tsquery('simple', query).
  await db.query(`create temp table vec as
      select id, case when stored is not null and stored <> '' then pg_temp.safe_v(stored)
                      else to_tsvector('simple', case when coalesce(version, '') <> '' then name || ' ' || version else name end) end as v
        from sw`);
  await db.query(`create temp table q as select id, blacklist, pg_temp.safe_q(query) as q from rl`);
  const refused = new Set((await db.query(`select id from q where q is null`)).rows.map((r) => r.id as string));
  await db.query(`create index on links (a)`);
  await db.query(`analyze links; analyze vec; analyze q`);
  const { rows } = await db.query(`
    with assets as (select distinct sg.r as set_id, m.a as asset_id from set_groups sg join members m on m.g = sg.g)
    select sr.s as set_id, sr.r as rule_id, x.asset_id, q.blacklist,
           coalesce(array_agg(l.s order by l.s) filter (where l.s is not null), '{}') as matched
      from set_rules sr join q on q.id = sr.r and q.q is not null
      join assets x on x.set_id = sr.s
      left join (links l join vec on vec.id = l.s) on l.a = x.asset_id and vec.v @@ q.q
     group by 1, 2, 3, 4`);
  const verdicts = new Map<string, string>();
  for (const r of rows) {
    const matched = r.matched as string[];
    const violated = r.blacklist ? matched.length > 0 : matched.length === 0;
    verdicts.set(`${r.set_id}|${r.rule_id}|${r.asset_id}`, `${violated ? 'violated' : 'satisfied'} ${matched.join(',')}`);
  }
  return { verdicts, refused };
}

describe.skipIf(!ref.client && !POSTGRES_REQUIRED)("the check's verdicts equal PostgreSQL's @@", () => {
  it('on the demo data and a generated data set, every (rule set, rule, asset)', async () => {
    expect(ref.client, ref.why).not.toBeNull();
    const sets = srv.store.all<{ id: string }>('SELECT id FROM rule_sets').map((r) => r.id);
    const res = await srv.call('POST', '/console/v1/compliance/check', { rule_set_ids: sets });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    const ours = new Map<string, string>();
    for (const r of res.body.results as { rule_set_id: string; rule_id: string; service_asset_id: string; verdict: string; software_ids: string[] }[]) {
      ours.set(`${r.rule_set_id}|${r.rule_id}|${r.service_asset_id}`, `${r.verdict} ${[...r.software_ids].sort().join(',')}`);
    }
    const theirs = await postgresVerdicts(ref.client!, srv);
    const diffs: string[] = [];
    for (const [key, v] of theirs.verdicts) if (ours.get(key) !== v) diffs.push(`${key}\n  ours:       ${ours.get(key)}\n  PostgreSQL: ${v}`);
    for (const key of ours.keys()) if (!theirs.verdicts.has(key)) diffs.push(`${key}: ours only`);
    expect(diffs.slice(0, 20).join('\n'), `${diffs.length} of ${theirs.verdicts.size} differ`).toBe('');
    expect(new Set(res.body.summary.invalid_rules.map((r: { rule_id: string }) => r.rule_id))).toEqual(new Set([...theirs.refused].filter((id) => srv.store.get1('SELECT 1 FROM rule_set_rules WHERE rule_id = ?', [id]))));
    // The comparison means something: both verdicts are common, on demo and generated sets alike.
    const counts = { satisfied: 0, violated: 0, generated: 0, withSoftware: 0 };
    for (const [key, v] of ours) {
      counts[v.startsWith('violated') ? 'violated' : 'satisfied']++;
      if (generatedSets.includes(key.split('|')[0]!)) counts.generated++;
      if (!v.endsWith(' ')) counts.withSoftware++;
    }
    expect(ours.size).toBe(theirs.verdicts.size);
    expect(counts.satisfied).toBeGreaterThan(ours.size / 10);
    expect(counts.violated).toBeGreaterThan(ours.size / 10);
    expect(counts.generated).toBeGreaterThan(1000);
    expect(counts.generated).toBeLessThan(ours.size);
    expect(counts.withSoftware).toBeGreaterThan(ours.size / 10);
    console.log(`compliance verdicts: ${ours.size} (rule set, rule, asset) results equal PostgreSQL's (${counts.satisfied} satisfied, ${counts.violated} violated)`);
  }, 300_000);
});

// Queries as a rule author types them, half of them broken: operands (quoted, Cyrillic, versions,
// paths), every operator, stray and missing parentheses, bad weights and distances.
const OPERANDS = ['teamviewer', 'AnyDesk', 'openssh-server', '1.2.3', "'microsoft office'", "'it''s'", "''", "' '", 'ядро', 'КриптоПро', 'c++', '-', 'x86_64', 'log4j-core-2.14.1.jar', '/usr/bin/ssh', "'http://x.org/a'", 'a\\ b', '\\!'];
const OPERATORS = ['&', '|', '!', '<->', '<0>', '<3>', '<16384>', '<16385>', '<-', '<x>', '(', ')', ':*', ':AB', ':a*', ':', ':Z', '\\', '*'];
const soup = fc
  .array(fc.oneof(fc.constantFrom(...OPERANDS), fc.constantFrom(...OPERATORS), fc.constantFrom(' ', '', '  ')), { minLength: 1, maxLength: 10 })
  .map((parts) => parts.join(''));
const tree = fc.letrec<{ q: string }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small' },
    fc.tuple(fc.constantFrom(...OPERANDS), fc.constantFrom('', '', ':*', ':A', ':BC*')).map(([w, m]) => w + m),
    fc.tuple(tie('q'), fc.constantFrom('&', '|', '<->', '<2>'), tie('q'), fc.boolean()).map(([a, o, b, p]) => (p ? `(${a} ${o} ${b})` : `${a} ${o} ${b}`)),
    tie('q').map((a) => `!${a}`),
  ),
})).q;
const ruleQuery = fc.oneof(soup, tree);

describe.skipIf(!ref.client && !POSTGRES_REQUIRED)('rule validation refuses exactly what PostgreSQL refuses', () => {
  it('POST /rules/create and PUT /rules/update on generated queries, valid and invalid', async () => {
    expect(ref.client, ref.why).not.toBeNull();
    const queries = [...new Set(fc.sample(ruleQuery, { numRuns: 700, seed: 2024 }))];
    await ref.client!.query(`create or replace function pg_temp.accepts(q text) returns boolean language plpgsql as $f$ begin perform to_tsquery('simple', q); return true; exception when others then return false; end $f$`);
    const { rows } = await ref.client!.query(`select pg_temp.accepts(q) ok from unnest($1::text[]) with ordinality u(q, n) order by n`, [queries]);
    const accepted = rows.map((r) => r.ok as boolean);
    expect(accepted).toHaveLength(queries.length);
    // One existing rule that every query is also tried on as an update.
    const target = await srv.call('POST', '/cruddy/v2/rules/create', { trace_id: crypto.randomUUID(), name: 'validation target', query: 'teamviewer' });
    expect(target.status, target.text).toBe(201);
    const diffs: string[] = [];
    for (let i = 0; i < queries.length; i++) {
      const query = queries[i]!;
      const created = await srv.call('POST', '/cruddy/v2/rules/create', { trace_id: crypto.randomUUID(), name: `validation ${i}`, query });
      const updated = await srv.call('PUT', '/cruddy/v2/rules/update', { trace_id: crypto.randomUUID(), id: target.body.id, name: 'validation target', query });
      for (const [what, res, ok] of [['create', created, 201], ['update', updated, 200]] as const) {
        const expected = accepted[i] ? ok : 400;
        if (res.status !== expected) diffs.push(`${what} ${JSON.stringify(query)}: ${res.status} ${res.text.slice(0, 200)}; PostgreSQL ${accepted[i] ? 'accepts' : 'refuses'} it`);
        else if (!accepted[i]) expect(res.body).toMatchObject({ error: 'invalid query' });
      }
      if (created.status === 201) expect(created.body.query).toBe(query);
    }
    expect(diffs.slice(0, 20).join('\n'), `${diffs.length} of ${queries.length * 2} writes differ`).toBe('');
    // Both kinds are common, so the comparison means something.
    const refused = accepted.filter((a) => !a).length;
    expect(refused).toBeGreaterThan(queries.length / 5);
    expect(queries.length - refused).toBeGreaterThan(queries.length / 5);
    const stored = srv.store.all<{ query: string }>("SELECT query FROM rules WHERE name LIKE 'validation %' AND name <> 'validation target'");
    expect(stored).toHaveLength(queries.length - refused);
    console.log(`rule validation: ${queries.length} queries (${queries.length - refused} accepted, ${refused} refused by PostgreSQL), create and update each: all equal`);
  }, 300_000);

  it('a blacklist of thousands of alternatives, and parentheses nested 5,000 and 20,000 levels deep, through POST /rules/create', async () => {
    expect(ref.client, ref.why).not.toBeNull();
    const names = Array.from({ length: 5000 }, (_, i) => `app-${i} & !'${i % 10}.0':*`);
    const queries = [names.join(' | '), names.slice(0, 1000).map((n) => `(${n})`).join(' & '), `${'x & ('.repeat(5000)}a${')'.repeat(5000)}`, `${'('.repeat(20_000)}a${')'.repeat(20_000)}`];
    const { rows } = await ref.client!.query(`select pg_temp.accepts(q) ok from unnest($1::text[]) with ordinality u(q, n) order by n`, [queries]).catch(async () => {
      await ref.client!.query(`create or replace function pg_temp.accepts(q text) returns boolean language plpgsql as $f$ begin perform to_tsquery('simple', q); return true; exception when others then return false; end $f$`);
      return ref.client!.query(`select pg_temp.accepts(q) ok from unnest($1::text[]) with ordinality u(q, n) order by n`, [queries]);
    });
    // PostgreSQL accepts the chains and 5,000 nested parentheses; 20,000 its stack refuses.
    expect(rows.map((r) => r.ok)).toEqual([true, true, true, false]);
    const answers = [];
    for (const [i, query] of queries.entries()) answers.push(await srv.call('POST', '/cruddy/v2/rules/create', { trace_id: crypto.randomUUID(), name: `long ${i}`, query }));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 400]);
    expect(answers[0]!.body.query).toBe(queries[0]);
    expect(answers[3]!.body).toMatchObject({ error: 'invalid query' });
  }, 120_000);
});
