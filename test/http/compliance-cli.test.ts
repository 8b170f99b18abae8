// `radar-console compliance check|match` as scripts and people call it: a snapshot of a demo
// platform taken with the CLI, checked offline; exit codes (0 nothing violated, 5 violations,
// 1 refused, 2 usage), --json equal to the API's answer, the progress bar on a terminal, and the
// incidents a check creates: once, then updated, and in the snapshot listed by `sync status` as
// changes to push. A snapshot copies the platform's finding types, assets and incidents; the
// software, asset groups, rule sets and rules come into it here as the origin's data arrives by
// pull (the write path's writes from the origin: not changes to push).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { getResource } from '../../src-shared/resources/index';
import { cliArgs, ROOT, runCli } from '../helpers/cli';
import { search, startTestServer, TEST_KEY, type TestServer } from '../helpers/server';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-compliance-cli-'));
let origin: TestServer;
let snap: string;
const SET = 'Контроль ПО на рабочих станциях';

const compliance = (...args: string[]) => runCli(['compliance', ...args]);

beforeAll(async () => {
  origin = await startTestServer({ seed: 'demo' });
  snap = path.join(tmp, 'snap.sqlite');
  const main = path.join(tmp, 'main.sqlite');
  openDatabase(main).db.close();
  const res = await runCli(['snapshot', '--url', origin.main, '--api-key', TEST_KEY, '--out', snap, '--add-instance', 'Выезд', '--db', main]);
  expect(res.code, res.stderr).toBe(0);
  bringComplianceData(origin.store, snap);
}, 180_000);

/** The origin's software, asset groups, rule sets and rules, into the snapshot as pulled data. */
function bringComplianceData(from: Store, file: string): void {
  const { db } = openDatabase(file, { create: false });
  const to = new Store(db);
  const untracked = { source: 'origin' as const };
  const ids = (sql: string, id: string) => from.all<{ v: string }>(sql, [id]).map((r) => r.v);
  try {
    to.tx(() => {
      for (const g of from.all<{ id: string; name: string }>('SELECT id, name FROM service_asset_groups')) to.create(getResource('service_asset_groups'), { id: g.id, name: g.name }, untracked);
      for (const s of from.all<{ id: string; name: string; version: string | null; raw_output_line: string | null; tsvector: string | null }>('SELECT id, name, version, raw_output_line, tsvector FROM software')) {
        to.create(getResource('software'), { ...s }, untracked);
      }
      for (const a of to.all<{ id: string }>('SELECT id FROM service_assets')) {
        const software = ids('SELECT software_id AS v FROM service_asset_software WHERE service_asset_id = ?', a.id);
        const groups = ids('SELECT service_asset_group_id AS v FROM service_asset_group_members WHERE service_asset_id = ?', a.id);
        to.update(getResource('service_assets'), { id: a.id, _relations: { software, service_asset_groups: groups } }, untracked);
      }
      for (const s of from.all<{ id: string; name: string; c: number }>('SELECT id, name, create_service_asset_findings AS c FROM rule_sets')) {
        const groups = ids('SELECT service_asset_group_id AS v FROM rule_set_asset_groups WHERE rule_set_id = ?', s.id);
        to.create(getResource('rule_sets'), { id: s.id, name: s.name, create_service_asset_findings: s.c === 1, _relations: { service_asset_groups: groups } }, untracked);
      }
      for (const r of from.all<{ id: string; trace_id: string; name: string; query: string; b: number }>('SELECT id, trace_id, name, query, blacklist_entry AS b FROM rules')) {
        const sets = ids('SELECT rule_set_id AS v FROM rule_set_rules WHERE rule_id = ?', r.id);
        to.create(getResource('rules'), { id: r.id, trace_id: r.trace_id, name: r.name, query: r.query, blacklist_entry: r.b === 1, _relations: { rule_sets: sets } }, untracked);
      }
    });
  } finally {
    db.close();
  }
}

afterAll(async () => {
  await origin?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

vi.setConfig({ testTimeout: 180_000 });

describe('compliance check', () => {
  it('prints the violations and exits 5; --json is the API answer; an asset that violates nothing exits 0', async () => {
    const human = await compliance('check', '--rule-set', SET, '--db', snap);
    expect(human.code, human.stderr).toBe(5);
    expect(human.stdout).toMatch(new RegExp(`^${SET}: 6 rules, \\d+ satisfied, \\d+ violated`));
    expect(human.stdout).toMatch(/Запрещено: TeamViewer \[blacklist: teamviewer\]: violated on \d+ of \d+ assets/);
    expect(human.stdout).toMatch(/installed: TeamViewer 15\.57\.5/);
    expect(human.stderr).toMatch(/radar-console: 6 rules x \d+ assets: \d+ satisfied, \d+ violated in [\d.]+ s; incidents: \d+ violations have none yet/);

    const json = await compliance('check', '--rule-set', SET, '--db', snap, '--json');
    expect(json.code).toBe(5);
    const answer = JSON.parse(json.stdout);
    // The same check over the origin's API (the snapshot holds the origin's data).
    const api = await origin.call('POST', '/console/v1/compliance/check', { rule_set_ids: [answer.rule_sets[0].id] });
    expect(api.status).toBe(200);
    const strip = (a: { results: unknown; summary: unknown }) => ({ results: a.results, summary: a.summary });
    expect(strip(answer)).toEqual(strip(api.body));
    expect(answer.summary.violated).toBeGreaterThan(0);

    // An asset on which every rule of some set is satisfied: exit 0.
    const sets = (await origin.call('POST', '/cruddy/v2/rule_sets/search', search({ limit: 50 }))).body.items as { id: string; name: string }[];
    let clean: { set: string; asset: string } | null = null;
    for (const s of sets) {
      const a = (await origin.call('POST', '/console/v1/compliance/check', { rule_set_ids: [s.id] })).body;
      const bad = new Set(a.results.filter((r: { verdict: string }) => r.verdict === 'violated').map((r: { service_asset_id: string }) => r.service_asset_id));
      const ok = a.assets.find((x: { id: string }) => !bad.has(x.id));
      if (ok && a.rules.length) {
        clean = { set: s.name, asset: ok.name };
        break;
      }
    }
    expect(clean, 'the demo data has an asset that satisfies a whole rule set').not.toBeNull();
    const zero = await compliance('check', '--rule-set', clean!.set, '--asset', clean!.asset, '--db', snap);
    expect(zero.code, zero.stderr).toBe(0);
    expect(zero.stderr).toMatch(/ x 1 assets: \d+ satisfied, 0 violated/);
  });

  it('creates one incident per violation once, then updates them; the snapshot lists them as changes to push', async () => {
    const before = JSON.parse((await runCli(['sync', 'status', '--db', snap, '--json'])).stdout).counts.total as number;
    const first = await compliance('check', '--rule-set', SET, '--db', snap, '--create-incidents', '--json');
    expect(first.code, first.stderr).toBe(5);
    const made = JSON.parse(first.stdout).summary;
    expect(made.incidents.created).toBe(made.violated);
    expect(made.incidents.updated).toBe(0);
    expect(first.stderr).toContain(`incidents: ${made.violated} created, 0 updated`);

    const status = JSON.parse((await runCli(['sync', 'status', '--db', snap, '--json', '--limit', '10000'])).stdout);
    type Entry = { resource: string; op: string; record_id: string; label: string | null };
    const created = new Set((status.entries as Entry[]).filter((e) => e.resource === 'service_asset_findings' && e.op === 'create').map((e) => e.record_id));
    expect(created.size).toBe(made.violated);
    expect((status.entries as Entry[]).filter((e) => e.resource === 'occurrences' && e.op === 'create')).toHaveLength(made.violated);
    expect(status.counts.total).toBeGreaterThan(before);
    const human = await runCli(['sync', 'status', '--db', snap, '--limit', '10000']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Запрещено: TeamViewer');

    const second = await compliance('check', '--rule-set', SET, '--db', snap, '--create-incidents', '--json');
    expect(second.code).toBe(5);
    expect(JSON.parse(second.stdout).summary.incidents).toMatchObject({ created: 0, updated: made.violated, would_create: 0 });
    const { db } = openDatabase(snap, { create: false });
    try {
      const n = db.prepare(`SELECT count(*) AS n FROM service_asset_findings f JOIN findings t ON t.id = f.finding_id WHERE t.software_compliance = 1 AND json_extract(t.identifier, '$.software_compliance_rule') IS NOT NULL`).get() as { n: number };
      expect(n.n).toBe(made.violated);
      const occ = db.prepare(`SELECT count(*) AS n FROM occurrences o JOIN service_asset_findings f ON f.id = o.service_asset_finding_id JOIN findings t ON t.id = f.finding_id WHERE o.event_type = 'software_compliance_source' AND json_extract(t.identifier, '$.software_compliance_rule') IS NOT NULL`).get() as { n: number };
      expect(occ.n).toBe(made.violated);
    } finally {
      db.close();
    }
  });

  it('refuses an unknown rule set (1, naming the sets there), a bad flag (2), a missing database (1) and creates no file', async () => {
    const unknown = await compliance('check', '--rule-set', 'Нет такого набора', '--db', snap);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no rule set "Нет такого набора" (give its id or its exact name); rule sets here: ');
    expect(unknown.stderr).toContain(`"${SET}"`);
    const noSet = await compliance('check', '--db', snap);
    expect(noSet.code).toBe(2);
    expect(noSet.stderr).toMatch(/--rule-set/);
    const missing = path.join(tmp, 'nope.sqlite');
    const gone = await compliance('check', '--rule-set', SET, '--db', missing);
    expect(gone.code).toBe(1);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it('draws a progress bar on a terminal', () => {
    // `script` gives the command a pseudo-terminal, as a person's shell does.
    const cmd = [process.execPath, ...cliArgs(['compliance', 'check', '--rule-set', SET, '--db', snap])].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const r = spawnSync('script', ['-qec', `${cmd} >/dev/null`, '/dev/null'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, COLUMNS: '120' } });
    expect(r.status, r.stderr).toBe(5);
    expect(r.stdout).toMatch(/(software|installed|rules) +\[[░█\s=-]*\] \d+%/);
  });
});

describe('compliance match', () => {
  it('lists the matching software with the count; --json pages; a refused query is a usage error at its position', async () => {
    const r = await compliance('match', 'teamviewer | anydesk', '--db', snap);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/TeamViewer 15\.57\.5 {2}\(\d+ assets?\)/);
    expect(r.stderr).toMatch(/radar-console: 'teamviewer' \| 'anydesk': 2 of \d+ software records match; 2 listed/);
    const page = JSON.parse((await compliance('match', "'openssh':* | teamviewer", '--limit', '1', '--json', '--db', snap)).stdout);
    expect(page.items).toHaveLength(1);
    expect(page.total).toBeGreaterThan(1);
    const bad = await compliance('match', 'teamviewer anydesk', '--db', snap);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('radar-console: invalid query at position 11: syntax error in tsquery: "teamviewer anydesk"');
  });
});
