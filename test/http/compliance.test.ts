// The compliance workbench's API over a real socket (every answer checked against /openapi.json
// by the helper): to_tsvector / to_tsquery of texts and queries, `@@` on lists and on the
// database's software (kept in step with writes), and the check of rule sets with the incidents
// of its violations, made once and reported when their violation is gone. The data is made here
// through the v2 API, so every expected verdict follows from the rule's definition.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;
const B = '/cruddy/v2';
const C = '/console/v1/compliance';

async function create(resource: string, body: Record<string, unknown>): Promise<string> {
  const res = await srv.call('POST', `${B}/${resource}/create`, body);
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

const check = async (body: Record<string, unknown>) => {
  const res = await srv.call('POST', `${C}/check`, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
};

// Software: ids by key.
const sw: Record<string, string> = {};
const assets: Record<string, string> = {};
const rules: Record<string, string> = {};
let groupA: string;
let groupB: string;
let raising: string;
let silent: string;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'none' });
  const software: [string, string, string | null, string | null][] = [
    ['teamviewer', 'TeamViewer', '15.57.5', null],
    ['anydesk', 'AnyDesk', '8.0.11', null],
    ['kes', 'Kaspersky Endpoint Security для Windows', '12.5.0.539', null],
    ['sshd', 'openssh-server', '1:9.2p1-2+deb12u3', null],
    ['ssh', 'openssh-client', '1:9.2p1-2+deb12u3', null],
    // A stored tsvector is what the record is matched by (a record copied from the platform).
    ['office', 'Microsoft Office профессиональный плюс 2019', '16.0.10827.20138', "'office':2 'microsoft':1 'professional':3 '2019':4"],
    ['csp', 'КриптоПро CSP', '5.0.12998', null],
  ];
  for (const [key, name, version, tsvector] of software) {
    sw[key] = await create('software', { name, version, raw_output_line: `${name} ${version}`, ...(tsvector ? { tsvector } : {}) });
  }
  groupA = await create('service_asset_groups', { name: 'Рабочие станции' });
  groupB = await create('service_asset_groups', { name: 'Серверы' });
  const hosts: [string, string[], string[]][] = [
    ['ws-01', ['teamviewer', 'kes', 'office'], [groupA]],
    ['ws-02', ['kes', 'ssh', 'csp'], [groupA]],
    ['ws-03', ['anydesk'], [groupA]],
    ['srv-01', ['sshd', 'kes'], [groupB]],
    ['srv-02', [], [groupA, groupB]],
  ];
  for (const [name, installed, groups] of hosts) {
    assets[name] = await create('service_assets', { name, _relations: { software: installed.map((k) => sw[k]!), service_asset_groups: groups } });
  }
  await create('network_interfaces', { service_asset_id: assets['ws-01'], ip: '10.0.0.11', fqdn: 'ws-01.corp.example' });
  raising = await create('rule_sets', { name: 'Рабочие станции: контроль ПО', create_service_asset_findings: true, _relations: { service_asset_groups: [groupA] } });
  silent = await create('rule_sets', { name: 'Серверы: отладка', create_service_asset_findings: false, _relations: { service_asset_groups: [groupB] } });
  const defs: [string, string, boolean, string[]][] = [
    ['remote', 'teamviewer | anydesk', true, [raising, silent]],
    ['av', 'kaspersky & endpoint', false, [raising, silent]],
    ['sshd', 'openssh-server', true, [silent]],
    ['office', "microsoft & 'office' & !2016", false, [raising]],
  ];
  for (const [key, query, blacklist, sets] of defs) rules[key] = await create('rules', { trace_id: crypto.randomUUID(), name: `rule ${key}`, query, blacklist_entry: blacklist, _relations: { rule_sets: sets } });
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

describe('to_tsvector and to_tsquery', () => {
  it('print what PostgreSQL prints, refusals with its message and the position', async () => {
    const v = await srv.call('POST', `${C}/tsvector`, { texts: ['Adobe Photoshop 2024', 'openssh-server 1:9.2p1', 'КриптоПро CSP 5.0', ''] });
    expect(v.status, v.text).toBe(200);
    expect(v.body.tsvectors).toEqual(["'2024':3 'adobe':1 'photoshop':2", "'1':4 '9.2':5 'openssh':2 'openssh-server':1 'p1':6 'server':3", "'5.0':3 'csp':2 'криптопро':1", '']);
    const q = await srv.call('POST', `${C}/tsquery`, { queries: ['openssh-server', 'a b', '(adobe & photoshop) | (gnu & gimp)', '-', 'a <16385> b'] });
    expect(q.status, q.text).toBe(200);
    expect(q.body.results).toEqual([
      { tsquery: "'openssh-server' <-> 'openssh' <-> 'server'" },
      { error: 'syntax error in tsquery: "a b"', reason: expect.any(String), position: 2 },
      { tsquery: "'adobe' & 'photoshop' | 'gnu' & 'gimp'" },
      { tsquery: '', notice: expect.stringContaining("doesn't contain lexemes") },
      { error: 'distance in phrase operator must be an integer value between zero and 16384 inclusive', reason: expect.any(String), position: 2 },
    ]);
  });

  it('refuse bad input in the error shape', async () => {
    for (const [path, body, text] of [
      ['tsvector', { texts: [] }, /texts/],
      ['tsvector', { texts: 'x' }, /texts/],
      ['tsquery', {}, /queries is required/],
      ['tsquery', { queries: ['x'], extra: 1 }, /unknown field: extra/],
    ] as const) {
      const res = await srv.call('POST', `${C}/${path}`, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ error: expect.stringMatching(text), error_code: 400 });
    }
  });
});

describe('match', () => {
  it('answers @@ for texts, tsvectors and software records', async () => {
    const t = await srv.call('POST', `${C}/match`, { query: 'openssh & !server', texts: ['openssh-client 9.2', 'openssh-server 9.2', 'OpenSSH'] });
    expect(t.body).toEqual({ tsquery: "'openssh' & !'server'", matches: [true, false, true] });
    const v = await srv.call('POST', `${C}/match`, { query: 'java <-> runtime', tsvectors: ["'java':1 'runtime':2", "'java':1 'runtime':3", "'java' 'runtime'"] });
    expect(v.body.matches).toEqual([true, false, false]);
    // The stored tsvector decides: "профессиональный" is not in it, "professional" is.
    const s = await srv.call('POST', `${C}/match`, { query: 'professional | профессиональный', software_ids: [sw.office, sw.csp] });
    expect(s.body.matches).toEqual([true, false]);
    const s2 = await srv.call('POST', `${C}/match`, { query: 'профессиональный', software_ids: [sw.office] });
    expect(s2.body.matches).toEqual([false]);
  });

  it('refuses a bad query, two lists, paging a list, unknown software and bad vectors', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ query: 'teamviewer anydesk' }, /^query: invalid query at position 11: syntax error in tsquery: "teamviewer anydesk"/],
      [{ query: 'a', texts: ['a'], tsvectors: ["'a'"] }, /send one list to match \(texts, tsvectors/],
      [{ query: 'a', texts: ['a'], limit: 5 }, /limit and offset page the database's matching software: not with texts/],
      [{ query: 'a', software_ids: ['00000000-0000-4000-8000-000000000000'] }, /software_ids: no software 00000000-0000-4000-8000-000000000000/],
      [{ query: 'a', tsvectors: ["'a':0"] }, /tsvectors\.0: wrong position info in tsvector/],
      [{ query: 'a', software_ids: ['not-a-uuid'] }, /software_ids\.0/],
      [{ query: 'a', limit: 1001 }, /limit/],
    ];
    for (const [body, text] of cases) {
      const res = await srv.call('POST', `${C}/match`, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatch(text);
    }
  });

  it("pages the database's matching software and keeps in step with its changes", async () => {
    const page = async (query: string, limit = 50, offset = 0) => {
      const res = await srv.call('POST', `${C}/match`, { query, limit, offset });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const first = await page('openssh:* | kaspersky');
    expect(first).toMatchObject({ tsquery: "'openssh':* | 'kaspersky'", total: 3, software_total: 7, unreadable: 0, limit: 50, offset: 0 });
    expect(first.items.map((i: { id: string }) => i.id)).toEqual([sw.kes, sw.sshd, sw.ssh]);
    expect(first.items[1]).toMatchObject({ name: 'openssh-server', stored_tsvector: false, asset_count: 1, tsvector: "'-2':7 '1':4 '9.2':5 'deb12u3':8 'openssh':2 'openssh-server':1 'p1':6 'server':3" });
    const second = await page('openssh:* | kaspersky', 2, 2);
    expect(second.items.map((i: { id: string }) => i.id)).toEqual([sw.ssh]);
    expect(second.total).toBe(3);

    // A new record, a renamed one and a deleted one are seen at the next query.
    const extra = await create('software', { name: 'OpenSSH for Windows', version: '9.5', raw_output_line: 'OpenSSH for Windows 9.5' });
    expect((await page('openssh:* | kaspersky')).total).toBe(4);
    const upd = await srv.call('PUT', `${B}/software/update`, { id: extra, name: 'PuTTY' });
    expect(upd.status, upd.text).toBe(200);
    const after = await page('openssh:* | kaspersky | putty');
    expect(after.total).toBe(4);
    expect(after.items.map((i: { name: string }) => i.name)).toContain('PuTTY');
    expect((await page('openssh:* | kaspersky')).total).toBe(3);
    expect((await srv.call('DELETE', `${B}/software/${extra}`)).status).toBe(200);
    expect((await page('putty')).total).toBe(0);
    expect((await page('putty')).software_total).toBe(7);
    // A query without a word matches nothing, as in PostgreSQL.
    expect(await page('-')).toMatchObject({ tsquery: '', total: 0 });
  });
});

describe('check', () => {
  const verdicts = (answer: { results: { rule_set_id: string; rule_id: string; service_asset_id: string; verdict: string; software_ids: string[] }[] }) =>
    Object.fromEntries(
      answer.results.map((r) => [
        `${r.rule_set_id === raising ? 'raising' : 'silent'}/${Object.keys(rules).find((k) => rules[k] === r.rule_id)}/${Object.keys(assets).find((k) => assets[k] === r.service_asset_id)}`,
        `${r.verdict}${r.software_ids.length ? `:${r.software_ids.map((id) => Object.keys(sw).find((k) => sw[k] === id)).join(',')}` : ''}`,
      ]),
    );

  it('answers each rule on each asset of the sets with the deciding software', async () => {
    const a = await check({ rule_set_ids: [raising, silent] });
    expect(verdicts(a)).toEqual({
      'raising/remote/ws-01': 'violated:teamviewer',
      'raising/remote/ws-02': 'satisfied',
      'raising/remote/ws-03': 'violated:anydesk',
      'raising/remote/srv-02': 'satisfied',
      'raising/av/ws-01': 'satisfied:kes',
      'raising/av/ws-02': 'satisfied:kes',
      'raising/av/ws-03': 'violated',
      'raising/av/srv-02': 'violated',
      'raising/office/ws-01': 'satisfied:office',
      'raising/office/ws-02': 'violated',
      'raising/office/ws-03': 'violated',
      'raising/office/srv-02': 'violated',
      'silent/remote/srv-01': 'satisfied',
      'silent/remote/srv-02': 'satisfied',
      'silent/av/srv-01': 'satisfied:kes',
      'silent/av/srv-02': 'violated',
      'silent/sshd/srv-01': 'violated:sshd',
      'silent/sshd/srv-02': 'satisfied',
    });
    // By asset in name order, then set, then rule name.
    expect([...new Set(a.results.map((r: { service_asset_id: string }) => r.service_asset_id))]).toEqual([assets['srv-01'], assets['srv-02'], assets['ws-01'], assets['ws-02'], assets['ws-03']]);
    expect(a.summary).toMatchObject({ rule_sets: 2, rules: 4, assets: 5, results: 18, satisfied: 9, violated: 9, invalid_rules: [] });
    expect(a.summary.incidents).toEqual({ would_create: 7, created: 0, updated: 0, not_created_for: [silent], resolved: [], closed_but_violated: [] });
    expect(a.summary.by_rule).toContainEqual({ rule_set_id: silent, rule_id: rules.sshd, satisfied: 1, violated: 1 });
    expect(a.software.map((s: { id: string }) => s.id).sort()).toEqual([sw.teamviewer, sw.anydesk, sw.kes, sw.office, sw.sshd].sort());
    expect(a.rules.find((r: { id: string }) => r.id === rules.office)).toMatchObject({ tsquery: "'microsoft' & 'office' & !'2016'", blacklist_entry: false, draft: false });
  });

  it('narrows to assets and rules, filters by verdict, pages by asset, checks drafts without saving', async () => {
    const one = await check({ rule_set_ids: [raising, silent], service_asset_ids: [assets['srv-02']], rule_ids: [rules.av] });
    expect(verdicts(one)).toEqual({ 'raising/av/srv-02': 'violated', 'silent/av/srv-02': 'violated' });
    const violated = await check({ rule_set_ids: [raising], verdict: 'violated', limit: 2, offset: 1 });
    expect(violated.total_assets).toBe(4);
    expect(violated.assets.map((x: { name: string }) => x.name)).toEqual(['ws-01', 'ws-02']);
    expect(violated.results.every((r: { verdict: string }) => r.verdict === 'violated')).toBe(true);
    expect(violated.summary.results).toBe(12);
    // A draft of the office rule that also accepts 2016: the answer differs, the rule does not.
    const draft = await check({ rule_set_ids: [raising], rule_ids: [rules.office], queries: { [rules.office!]: 'microsoft & office' } });
    expect(draft.rules).toEqual([expect.objectContaining({ id: rules.office, query: 'microsoft & office', draft: true })]);
    expect((await srv.call('GET', `${B}/rules/${rules.office}`)).body.query).toBe("microsoft & 'office' & !2016");
  });

  it('refuses unknown sets, assets outside the groups, stray rules and drafts that would raise incidents', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ rule_set_ids: ['00000000-0000-4000-8000-000000000001'] }, /^rule_set_ids: no rule set 00000000-0000-4000-8000-000000000001$/],
      [{ rule_set_ids: [] }, /rule_set_ids/],
      [{ rule_set_ids: [silent], service_asset_ids: [assets['ws-01']] }, /is in none of the asset groups of the rule sets/],
      [{ rule_set_ids: [silent], service_asset_ids: ['00000000-0000-4000-8000-000000000002'] }, /service_asset_ids: no asset/],
      [{ rule_set_ids: [silent], rule_ids: [rules.office] }, /rule_ids: .* is in none of the rule sets/],
      [{ rule_set_ids: [raising], queries: { [rules.av!]: 'kaspersky' }, create_incidents: true }, /draft queries are checked only/],
      [{ rule_set_ids: [raising], queries: { [rules.av!]: 'kaspersky endpoint' } }, /invalid query: syntax error in tsquery/],
      [{ rule_set_ids: [raising], queries: { [rules.sshd!]: 'x' } }, /is not a rule of the rule sets checked/],
      [{ rule_set_ids: [raising], verdict: 'maybe' }, /verdict/],
    ];
    for (const [body, text] of cases) {
      const res = await srv.call('POST', `${C}/check`, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatch(text);
    }
  });

  it('creates one incident per violation once; a second check updates the occurrence; a violation gone is reported', async () => {
    const first = await check({ rule_set_ids: [raising, silent], create_incidents: true });
    expect(first.summary.incidents).toMatchObject({ would_create: 0, created: 7, updated: 0, not_created_for: [silent] });
    const violatedRaising = first.results.filter((r: { verdict: string; rule_set_id: string }) => r.verdict === 'violated' && r.rule_set_id === raising);
    expect(violatedRaising).toHaveLength(7);
    expect(violatedRaising.every((r: { incident_id: string | null }) => typeof r.incident_id === 'string')).toBe(true);
    // The silent set's violations raise nothing (the asset srv-02 is in both: its av incident comes from the raising set).
    const sshd = first.results.find((r: { rule_id: string; verdict: string }) => r.rule_id === rules.sshd && r.verdict === 'violated');
    expect(sshd.incident_id).toBeNull();

    const incidents = async () =>
      (await srv.call('POST', `${B}/service_asset_findings/search`, search({ limit: 100, relations: ['finding', 'occurrences'] }))).body.items as {
        id: string;
        title: string;
        service_asset_id: string;
        status: string;
        last_occurrence_id: string;
        c_occurrence_count: number;
        analysis_output: string;
        finding: { software_compliance: boolean; identifier: Record<string, string>; title: string };
        occurrences: { id: string; event_type: string; start_occurrence: string; end_occurrence: string; ip: string | null; fqdn: string | null }[];
      }[];
    const made = await incidents();
    expect(made).toHaveLength(7);
    for (const inc of made) {
      expect(inc.finding.software_compliance).toBe(true);
      expect(Object.values(rules)).toContain(inc.finding.identifier.software_compliance_rule);
      expect(inc.occurrences).toHaveLength(1);
      expect(inc.occurrences[0]).toMatchObject({ event_type: 'software_compliance_source', id: inc.last_occurrence_id });
      expect(inc.c_occurrence_count).toBe(1);
      expect(inc.status).toBe('new');
    }
    const tv = made.find((i) => i.service_asset_id === assets['ws-01'] && i.title === 'rule remote')!;
    expect(tv.analysis_output).toContain('TeamViewer 15.57.5');
    expect(tv.occurrences[0]).toMatchObject({ ip: '10.0.0.11', fqdn: 'ws-01.corp.example' });
    // One finding type per rule.
    const findings = (await srv.call('POST', `${B}/findings/search`, search({ limit: 100 }))).body.items as { software_compliance: boolean }[];
    expect(findings.filter((f) => f.software_compliance)).toHaveLength(3);

    const second = await check({ rule_set_ids: [raising, silent], create_incidents: true });
    expect(second.summary.incidents).toMatchObject({ would_create: 0, created: 0, updated: 7 });
    const again = await incidents();
    expect(again).toHaveLength(7);
    const tv2 = again.find((i) => i.id === tv.id)!;
    expect(tv2.occurrences).toHaveLength(1);
    expect(tv2.occurrences[0]!.id).toBe(tv.occurrences[0]!.id);
    expect(tv2.occurrences[0]!.end_occurrence > tv.occurrences[0]!.end_occurrence).toBe(true);
    expect(tv2.occurrences[0]!.start_occurrence).toBe(tv.occurrences[0]!.start_occurrence);

    // TeamViewer removed from ws-01: the incident stays open and is reported as resolved.
    const upd = await srv.call('PUT', `${B}/software/update`, { id: sw.teamviewer, _relations: { service_assets: [] } });
    expect(upd.status, upd.text).toBe(200);
    // AnyDesk's incident on ws-03 closed by the analyst while AnyDesk is still there.
    const anydesk = again.find((i) => i.service_asset_id === assets['ws-03'] && i.title === 'rule remote')!;
    expect((await srv.call('PUT', '/data/public/api/v1/incidents/update/status', { id: anydesk.id, status: 'closed' })).status).toBe(200);
    const third = await check({ rule_set_ids: [raising], create_incidents: true });
    expect(third.summary.incidents).toMatchObject({ created: 0, updated: 6 });
    expect(third.summary.incidents.resolved).toEqual([expect.objectContaining({ incident_id: tv.id, rule_id: rules.remote, service_asset_id: assets['ws-01'], status: 'new' })]);
    expect(third.summary.incidents.closed_but_violated).toEqual([expect.objectContaining({ incident_id: anydesk.id, status: 'closed' })]);
    expect((await srv.call('GET', `${B}/service_asset_findings/${tv.id}?relations=`)).body.status).toBe('new');
    expect(await incidents()).toHaveLength(7);
  });
});
