// Public API v1 over real sockets (spec: Public API v1, Standard filters of the public API;
// contract.md §3 public list paging, risk bands, status change rules): the lists with every
// operator, nested entities, paging and ordering; the incident's extra fields checked against
// the v2 data; the status and risk updates with their side effects; the incident create of the
// routing port (ServiceAssetFindingDBFields) and of the main port.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { searchableFields } from '../../src-main/store/ddl';
import { search, startTestServer, type TestServer } from '../helpers/server';
import { allIncidents, mainId, PUB, TS_ISO, UNKNOWN_ID, V2 } from './issue3-helpers';

let srv: TestServer;
let all: any[];
let findings: any[];
let findingById: Map<string, any>;
let groups: Map<string, string>;
let statusChanges: any[];

const TS6 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  all = await allIncidents(srv);
  const f = await srv.call('GET', `${PUB}/findings?per_page=1000`);
  findings = f.body.objects;
  findingById = new Map(findings.map((x) => [x.id, x]));
  const g = await srv.call('POST', `${V2}/responsible_groups/search`, search({ limit: 1000 }));
  groups = new Map((g.body.items as any[]).map((x) => [x.id, x.name]));
  const sc = await srv.call('POST', `${V2}/service_asset_finding_status_changes/search`, search({ limit: 10000 }));
  expect(sc.status, sc.text).toBe(200);
  statusChanges = sc.body.items;
});

afterAll(async () => {
  await srv?.stop();
});

/** Public list of incidents with a raw query string; asserts 200. */
async function list(query: string, entity = 'incidents'): Promise<{ objects: any[]; total: number }> {
  const res = await srv.call('GET', `${PUB}/${entity}?${query}`);
  expect(res.status, `${query}: ${res.text.slice(0, 300)}`).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['objects', 'total']);
  return res.body;
}

/** The ids a filter selects (all of them: per_page 1000), and the ids expected from the data. */
async function expectSelects(query: string, pred: (o: any) => boolean): Promise<any[]> {
  const got = await list(`per_page=1000&${query}`);
  const want = all.filter(pred).map((o) => o.id).sort();
  expect(want.length, `the data has matches for ${query}`).toBeGreaterThan(0);
  expect(want.length, `the data has non-matches for ${query}`).toBeLessThan(all.length);
  expect(got.objects.map((o) => o.id).sort(), query).toEqual(want);
  expect(got.total, query).toBe(want.length);
  return got.objects;
}

const enc = encodeURIComponent;
const low = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');

async function expect400(query: string, names: string[], entity = 'incidents'): Promise<string> {
  const res = await srv.call('GET', `${PUB}/${entity}?${query}`);
  expect(res.status, `${query}: ${res.text}`).toBe(400);
  expect(res.body).toEqual({ error: expect.any(String), error_code: 400 });
  for (const n of names) expect(res.body.error, `${query}: the error names ${n}`).toContain(n);
  return res.body.error;
}

describe('standard filters: every operator', () => {
  it('like: case-insensitive substring, Cyrillic folded, on stored and computed fields', async () => {
    await expectSelects(`title=${enc('like,подбор пароля')}`, (o) => low(o.title).includes('подбор пароля'));
    const upper = await list(`per_page=1000&title=${enc('like,ПОДБОР ПАРОЛЯ')}`);
    const lower = await list(`per_page=1000&title=${enc('like,подбор пароля')}`);
    expect(upper.objects.map((o) => o.id).sort()).toEqual(lower.objects.map((o) => o.id).sort());
    await expectSelects(`title=like,ssh`, (o) => low(o.title).includes('ssh'));
    // two characters (shorter than a trigram) and a computed field
    await expectSelects(`service_asset_name=${enc('like,мф')}`, (o) => low(o.service_asset_name).includes('мф'));
    await expectSelects(`service_asset_name=like,WS`, (o) => low(o.service_asset_name).includes('ws'));
  });

  it('gt and lt on a number, an integer and a timestamp (bounds excluded)', async () => {
    await expectSelects('risklevel=gt,7', (o) => o.risklevel > 7);
    await expectSelects('risklevel=lt,2.5', (o) => o.risklevel < 2.5);
    const pivot = [...all].sort((a, b) => a.risklevel - b.risklevel)[200]!.risklevel as number;
    await expectSelects(`risklevel=gt,${pivot}`, (o) => o.risklevel > pivot);
    await expectSelects(`risklevel=lt,${pivot}`, (o) => o.risklevel < pivot);
    await expectSelects('display_id=gt,390', (o) => o.display_id > 390);
    await expectSelects('occurrence_count=gt,2', (o) => o.occurrence_count > 2);
    const sorted = all.map((o) => o.created_at as string).sort();
    const mid = sorted[150]!;
    await expectSelects(`created_at=gt,${enc(mid)}`, (o) => o.created_at > mid);
    await expectSelects(`created_at=lt,${enc(mid)}`, (o) => o.created_at < mid);
    // a time in another form (seconds only, an offset) is the same instant
    await expectSelects(`created_at=gt,${enc('2026-10-01T03:00:00+03:00')}`, (o) => o.created_at > '2026-10-01T00:00:00.000000Z');
    // the same field twice: a range (both conditions)
    const hi = sorted[300]!;
    await expectSelects(`created_at=gt,${enc(mid)}&created_at=lt,${enc(hi)}`, (o) => o.created_at > mid && o.created_at < hi);
  });

  it('in and notin take several values', async () => {
    await expectSelects('status=in,new,assigned_customer,verify_close', (o) => ['new', 'assigned_customer', 'verify_close'].includes(o.status));
    await expectSelects('status=notin,closed,invalid', (o) => !['closed', 'invalid'].includes(o.status));
    await expectSelects('risk=in,high,critical', (o) => ['high', 'critical'].includes(o.risk));
    const some = all.slice(0, 3).map((o) => o.display_id);
    await expectSelects(`display_id=in,${some.join(',')}`, (o) => some.includes(o.display_id));
    await expectSelects(`display_id=notin,${some.join(',')}`, (o) => !some.includes(o.display_id));
  });

  it('eq and noteq, with commas kept inside an eq value', async () => {
    await expectSelects('status=eq,new', (o) => o.status === 'new');
    await expectSelects('status=noteq,closed', (o) => o.status !== 'closed');
    const withComma = all.find((o) => typeof o.analysis_output === 'string' && o.analysis_output.includes(', '))!;
    expect(withComma).toBeTruthy();
    const got = await expectSelects(`analysis_output=${enc(`eq,${withComma.analysis_output}`)}`, (o) => o.analysis_output === withComma.analysis_output);
    expect(got.map((o) => o.id)).toContain(withComma.id);
    const desc = all.find((o) => typeof o.description === 'string' && o.description.includes(','))!;
    await expectSelects(`description=${enc(`eq,${desc.description}`)}`, (o) => o.description === desc.description);
    await expectSelects(`risklevel=eq,${withComma.risklevel}`, (o) => o.risklevel === withComma.risklevel);
    await expectSelects('external=eq,false', (o) => o.external === false);
    // noteq keeps the records whose field is empty: they do not equal the value
    const note = all.find((o) => o.client_note !== null)!.client_note as string;
    await expectSelects(`client_note=${enc(`noteq,${note}`)}`, (o) => o.client_note !== note);
  });

  it('isnull and isnotnull take no value', async () => {
    await expectSelects('client_note=isnull', (o) => o.client_note === null);
    await expectSelects('client_note=isnotnull', (o) => o.client_note !== null);
    await expectSelects('reopened_at=isnotnull', (o) => o.reopened_at !== null);
    await expectSelects('last_scan=isnull', (o) => o.last_scan === null);
    await expectSelects('service_asset.scan_id=isnotnull', (o) => o.service_asset !== null && o.service_asset.scan_id !== null);
  });

  it('nested entities: service_asset.<field> and finding.<field>', async () => {
    await expectSelects('service_asset.name=like,web', (o) => low(o.service_asset?.name).includes('web'));
    await expectSelects(`service_asset.name=${enc('like,КОНТРОЛЛЕР')}`, (o) => low(o.service_asset?.name).includes('контроллер'));
    await expectSelects('service_asset.network_exposure=lt,3', (o) => o.service_asset !== null && o.service_asset.network_exposure < 3);
    await expectSelects('service_asset.type=eq,Workstation', (o) => o.service_asset?.type === 'Workstation');
    const title = findingById.get(all[0]!.finding_id)!.title as string;
    await expectSelects(`finding.title=${enc(`eq,${title}`)}`, (o) => findingById.get(o.finding_id)?.title === title);
    await expectSelects('finding.title=like,ssh', (o) => low(findingById.get(o.finding_id)?.title).includes('ssh'));
    await expectSelects('finding.type=in,bruteforce,persistence', (o) => ['bruteforce', 'persistence'].includes(findingById.get(o.finding_id)?.type));
  });

  it('several filters combine with AND', async () => {
    await expectSelects(
      `status=in,new,assigned_customer,working_customer&risklevel=gt,5&service_asset.name=${enc('like,сервер')}`,
      (o) => ['new', 'assigned_customer', 'working_customer'].includes(o.status) && o.risklevel > 5 && low(o.service_asset?.name).includes('сервер'),
    );
    await expectSelects(`title=${enc('like,подбор')}&status=noteq,closed&search=ssh`, (o) =>
      low(o.title).includes('подбор') && o.status !== 'closed' && searchHit(o, 'ssh'),
    );
  });
});

/** `search`: case-insensitive substring of any of the incident's text fields (contract.md §3). */
function searchHit(o: any, needle: string): boolean {
  const fields = searchableFields(getResource('service_asset_findings'));
  return fields.some((f) => low(o[f]).includes(needle.toLowerCase()));
}

describe('search', () => {
  it('is a case-insensitive substring over the text fields, Cyrillic included', async () => {
    const a = await expectSelects(`search=${enc('ПАРОЛ')}`, (o) => searchHit(o, 'парол'));
    const b = await list(`per_page=1000&search=${enc('парол')}`);
    expect(b.objects.map((o) => o.id).sort()).toEqual(a.map((o) => o.id).sort());
    await expectSelects(`search=${enc('Учётн')}`, (o) => searchHit(o, 'учётн'));
    await expectSelects('search=Kerberoast', (o) => searchHit(o, 'kerberoast'));
    // shorter than a trigram
    await expectSelects(`search=${enc('C&C')}`, (o) => searchHit(o, 'c&c'));
  });

  it('searches finding types and assets too', async () => {
    const f = await list(`per_page=1000&search=${enc('ПАРОЛ')}`, 'findings');
    expect(f.total).toBeGreaterThan(0);
    expect(f.total).toBeLessThan(findings.length);
    for (const x of f.objects) expect(JSON.stringify(x).toLowerCase()).toContain('парол');
    const a = await list(`per_page=1000&search=${enc('ЦОД-2')}`, 'serviceAssets');
    expect(a.total).toBeGreaterThan(0);
    for (const x of a.objects) expect(JSON.stringify(x).toLowerCase()).toContain('цод-2');
  });
});

describe('paging', () => {
  it('per_page defaults to 50 and total counts every match', async () => {
    const r = await list('');
    expect(r.objects).toHaveLength(50);
    expect(r.total).toBe(all.length);
    const closed = all.filter((o) => o.status === 'closed').length;
    const p = await list('status=eq,closed&per_page=20&page=2');
    expect(p.objects).toHaveLength(20);
    expect(p.total).toBe(closed);
  });

  it('pages from 1 cover every match exactly once, and a page past the end is empty with the same total', async () => {
    const per = 7;
    const seen: string[] = [];
    const pages = Math.ceil(all.length / per);
    for (let page = 1; page <= pages; page++) {
      const r = await list(`order=display_id&per_page=${per}&page=${page}`);
      expect(r.total).toBe(all.length);
      expect(r.objects.length).toBe(page < pages ? per : all.length - per * (pages - 1));
      seen.push(...r.objects.map((o) => o.id));
    }
    expect(new Set(seen).size).toBe(all.length);
    expect(seen).toEqual([...all].sort((a, b) => a.display_id - b.display_id).map((o) => o.id));
    const past = await list(`order=display_id&per_page=${per}&page=${pages + 1}`);
    expect(past).toEqual({ objects: [], total: all.length });
    const far = await list('status=eq,new&page=999');
    expect(far).toEqual({ objects: [], total: all.filter((o) => o.status === 'new').length });
  });

  it('per_page 1000 is accepted; 1001, 0 and non-numbers are 400 naming the parameter', async () => {
    const r = await list('per_page=1000');
    expect(r.objects).toHaveLength(all.length);
    await expect400('per_page=1001', ['per_page']);
    await expect400('per_page=0', ['per_page']);
    await expect400('per_page=ten', ['per_page']);
    await expect400('page=0', ['page']);
    await expect400('page=-1', ['page']);
  });
});

type Key = [field: string, dir: 'asc' | 'desc'];
function expectOrdered(objects: any[], keys: Key[]): void {
  const cmp = (a: any, b: any): number => {
    for (const [f, dir] of keys) {
      const x = a[f];
      const y = b[f];
      if (x === y) continue;
      const c = x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
      return dir === 'asc' ? c : -c;
    }
    return 0;
  };
  for (let i = 1; i < objects.length; i++) {
    expect(cmp(objects[i - 1], objects[i]), `rows ${i - 1} and ${i} by ${JSON.stringify(keys)}`).toBeLessThanOrEqual(0);
  }
}

describe('order', () => {
  it('field (ascending), field asc, field desc and -field', async () => {
    const asc = (await list('per_page=1000&order=risklevel')).objects;
    expect(asc).toHaveLength(all.length);
    expectOrdered(asc, [['risklevel', 'asc']]);
    expect(asc[0].risklevel).toBeLessThan(asc[asc.length - 1].risklevel);
    expectOrdered((await list(`per_page=1000&order=${enc('risklevel asc')}`)).objects, [['risklevel', 'asc']]);
    const desc = (await list(`per_page=1000&order=${enc('risklevel desc')}`)).objects;
    expectOrdered(desc, [['risklevel', 'desc']]);
    expect(desc[0].risklevel).toBeGreaterThan(desc[desc.length - 1].risklevel);
    const minus = (await list('per_page=1000&order=-risklevel')).objects;
    expectOrdered(minus, [['risklevel', 'desc']]);
    const byTime = (await list('per_page=1000&order=-created_at')).objects;
    expectOrdered(byTime, [['created_at', 'desc']]);
    expect(byTime[0].created_at).toBe(all.map((o) => o.created_at).sort().at(-1));
  });

  it('several comma-separated keys', async () => {
    const a = (await list('per_page=1000&order=-risklevel,created_at')).objects;
    expectOrdered(a, [['risklevel', 'desc'], ['created_at', 'asc']]);
    const b = (await list(`per_page=1000&order=${enc('status,display_id desc')}`)).objects;
    expectOrdered(b, [['status', 'asc'], ['display_id', 'desc']]);
    expect(b[0].status).toBe([...new Set(all.map((o) => o.status as string))].sort()[0]);
    const c = (await list('per_page=1000&order=status,-risklevel,display_id&status=in,new,closed')).objects;
    expectOrdered(c, [['status', 'asc'], ['risklevel', 'desc'], ['display_id', 'asc']]);
    expect(c.length).toBe(all.filter((o) => ['new', 'closed'].includes(o.status)).length);
  });

  it('an unknown order field is 400 naming it', async () => {
    await expect400('order=no_such_field', ['no_such_field']);
    await expect400('order=-risklevel,bogus_key', ['bogus_key']);
  });
});

describe('400 naming the culprit', () => {
  it('unknown field, unknown operator, unknown nested entity or field, wrong value type, missing or extra value', async () => {
    await expect400('no_such_field=eq,1', ['no_such_field']);
    await expect400('status=between,new', ['between', 'status']);
    await expect400('status=equals,new', ['equals']);
    await expect400('bogus_entity.name=eq,x', ['bogus_entity']);
    await expect400('service_asset.no_such_field=eq,x', ['no_such_field']);
    await expect400('finding.nope=like,x', ['nope']);
    await expect400('risklevel=gt,abc', ['risklevel']);
    await expect400('display_id=eq,1.5', ['display_id']);
    await expect400('created_at=gt,yesterday', ['created_at']);
    await expect400('service_asset.network_exposure=lt,high', ['network_exposure']);
    await expect400('status=in', ['status']);
    await expect400('client_note=isnull,x', ['client_note']);
    await expect400('no_such=eq,1', ['no_such'], 'findings');
    await expect400('no_such=eq,1', ['no_such'], 'serviceAssets');
  });
});

const INCIDENT_FIELDS = [
  'id', 'created_at', 'updated_at', 'description', 'risk_impact', 'solution', 'mitigation', 'status', 'risklevel',
  'service_asset_id', 'finding_id', 'analysis_output', 'synopsis', 'title', 'risk', 'acknowledged_at', 'alert_type',
  'client_note', 'internal_note', 'external', 'immediate_action_score', 'throughput_period', 'throughput_period_change',
  'customer_created', 'c_visible_since', 'c_visible_since_in_days', 'c_reopened_count', 'c_last_customer_status_change',
  'logmule_identifier', 'c_remote_exploitable', 'c_occurrence_count', 'с_customer_retention_time', 'last_occurrence_id',
  'itsm_last_synced_at', 'itsm_sync_status', 'external_id', 'itsm_sync_error', 'user_id', 'updated_by', 'group_id',
  'acknowledged_by', 'created_by_customer', 'edited_by', 'incident_group_id', 'reopened_at', 'display_id',
];
const PUBLIC_EXTRAS = [
  'service_asset_name', 'service_asset_active', 'occurrence_count', 'user_short_name', 'group_name', 'finding_display_id',
  'reopened_count', 'event_type', 'finding_type', 'last_occurrence_ip', 'last_status_change', 'last_scan', 'last_occurrence',
  'remote_exploitable', 'service_asset_network_exposure', 'display_title', 'customer_retention_time', 'visible_since',
  'visible_since_in_days', 'last_customer_status_change', 'service_asset', 'occurrences', 'front_link',
];

const typeOk = (v: unknown, t: 'string' | 'boolean' | 'int' | 'number' | 'ts') =>
  v === null ||
  (t === 'int' ? Number.isInteger(v) : t === 'number' ? typeof v === 'number' : t === 'ts' ? typeof v === 'string' && TS_ISO.test(v) : typeof v === t);

describe('incident objects', () => {
  it('carry every incident field and every public extra the spec lists, typed', () => {
    expect(INCIDENT_FIELDS[31]!.charCodeAt(0), 'the retention field starts with a Cyrillic letter').toBe(0x0441);
    for (const o of all) {
      for (const k of [...INCIDENT_FIELDS, ...PUBLIC_EXTRAS]) expect(o, `incident ${o.display_id} has ${k}`).toHaveProperty(k);
      expect(typeOk(o.service_asset_active, 'boolean')).toBe(true);
      expect(Number.isInteger(o.occurrence_count)).toBe(true);
      expect(typeOk(o.finding_display_id, 'int')).toBe(true);
      expect(Number.isInteger(o.reopened_count)).toBe(true);
      expect(typeOk(o.remote_exploitable, 'boolean')).toBe(true);
      expect(typeOk(o.service_asset_network_exposure, 'int')).toBe(true);
      expect(typeOk(o.customer_retention_time, 'int')).toBe(true);
      expect(typeOk(o.visible_since_in_days, 'int')).toBe(true);
      for (const t of ['last_status_change', 'last_scan', 'last_occurrence', 'visible_since', 'last_customer_status_change']) {
        expect(typeOk(o[t], 'ts'), `${t}: ${o[t]}`).toBe(true);
      }
      for (const t of ['user_short_name', 'group_name', 'event_type', 'finding_type', 'last_occurrence_ip', 'display_title']) {
        expect(typeOk(o[t], 'string'), t).toBe(true);
      }
      expect(Array.isArray(o.occurrences)).toBe(true);
      expect(typeof o.front_link).toBe('string');
      const link = new URL(o.front_link);
      expect(link.protocol).toMatch(/^https?:$/);
      expect(o.front_link).toContain(o.id);
      expect(`${link.protocol}//${link.host}`).toBe(srv.main);
    }
  });

  it('extras agree with the incident, its asset, finding type, occurrences, group and status changes', () => {
    const changesOf = new Map<string, any[]>();
    for (const c of statusChanges) changesOf.set(c.service_asset_finding_id, [...(changesOf.get(c.service_asset_finding_id) ?? []), c]);
    let withAsset = 0;
    let withOcc = 0;
    for (const o of all) {
      const ctx = `incident ${o.display_id}`;
      expect(o.occurrence_count, ctx).toBe(o.occurrences.length);
      for (const occ of o.occurrences) expect(occ.service_asset_finding_id, ctx).toBe(o.id);
      if (o.service_asset_id) {
        withAsset++;
        expect(o.service_asset?.id, ctx).toBe(o.service_asset_id);
        expect(o.service_asset_name, ctx).toBe(o.service_asset.name);
        expect(o.service_asset_active, ctx).toBe(o.service_asset.active);
        expect(o.service_asset_network_exposure, ctx).toBe(o.service_asset.network_exposure);
      } else {
        expect(o.service_asset, ctx).toBeNull();
        expect(o.service_asset_name, ctx).toBeNull();
      }
      const f = findingById.get(o.finding_id);
      expect(o.finding_display_id, ctx).toBe(f?.display_id ?? null);
      expect(o.finding_type, ctx).toBe(f?.type ?? null);
      expect(o.display_title, ctx).toBe(o.title ?? f?.title ?? null);
      expect(o.reopened_count, ctx).toBe(o.c_reopened_count ?? 0);
      expect(o.remote_exploitable, ctx).toBe(o.c_remote_exploitable);
      expect(o.customer_retention_time, ctx).toBe(o['с_customer_retention_time']);
      expect(o.visible_since, ctx).toBe(o.c_visible_since);
      expect(o.last_customer_status_change, ctx).toBe(o.c_last_customer_status_change);
      if (o.c_visible_since_in_days !== null) expect(o.visible_since_in_days, ctx).toBe(o.c_visible_since_in_days);
      expect(o.group_name, ctx).toBe(o.group_id ? (groups.get(o.group_id) ?? null) : null);
      const changes = changesOf.get(o.id) ?? [];
      expect(changes.length, `${ctx} has status changes`).toBeGreaterThan(0);
      expect(o.last_status_change, ctx).toBe(changes.map((c) => c.created_at as string).sort().at(-1));
      if (o.occurrences.length) {
        withOcc++;
        const latest = [...o.occurrences].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))[0];
        expect(o.last_occurrence, ctx).toBe(latest.created_at);
        expect(o.last_occurrence_ip, ctx).toBe(latest.ip);
        expect(o.event_type, ctx).toBe(latest.event_type);
      } else {
        expect(o.last_occurrence, ctx).toBeNull();
      }
    }
    expect(withAsset).toBeGreaterThan(100);
    expect(withOcc).toBeGreaterThan(100);
  });

  it('own fields equal the v2 record, the asset equals the v2 asset', async () => {
    for (const o of all.filter((_, i) => i % 57 === 0)) {
      const v2 = await srv.call('GET', `${V2}/service_asset_findings/${o.id}?relations=`);
      expect(v2.status, v2.text).toBe(200);
      for (const k of INCIDENT_FIELDS) expect(o[k], `incident ${o.display_id}.${k}`).toEqual(v2.body[k]);
      if (o.service_asset_id) {
        const a = await srv.call('GET', `${V2}/service_assets/${o.service_asset_id}?relations=`);
        expect(a.status).toBe(200);
        for (const k of ['id', 'name', 'type', 'active', 'value', 'location', 'network_exposure', 'responsible_group_id']) {
          expect(o.service_asset[k], `asset.${k}`).toEqual(a.body[k]);
        }
      }
    }
  });
});

describe('finding types and assets lists', () => {
  const FINDING_FIELDS = [
    'title', 'description', 'risk_impact', 'solution', 'mitigation', 'synopsis', 'comment', 'client_note', 'internal_note',
    'created_at', 'updated_at', 'id', 'display_id', 'local', 'new_version', 'customer_created', 'software_compliance', 'type',
    'identifier', 'fallback_raw_risklevel', 'cpes', 'category_id', 'updated_by', 'created_by_customer', 'edited_by',
    'itsm_last_synced_at', 'front_link',
  ];
  const ASSET_FIELDS = [
    'id', 'created_at', 'updated_at', 'type', 'name', 'description', 'coordinates', 'active', 'scan_id', 'value',
    'client_note', 'internal_note', 'location', 'network_exposure', 'responsible_person', 'technical_specialist',
    'responsible_group_id', 'edited_by',
  ];

  it('findings: every finding-type field, total = the v2 count, filters and order', async () => {
    const v2 = await srv.call('POST', `${V2}/findings/search`, search({ limit: 0 }));
    expect(findings.length).toBe(v2.body.total);
    for (const f of findings) {
      for (const k of FINDING_FIELDS) expect(f, k).toHaveProperty(k);
      expect(Number.isInteger(f.display_id)).toBe(true);
      expect(typeof f.identifier).toBe('object');
      expect(Array.isArray(f.cpes)).toBe(true);
      expect(new URL(f.front_link).href).toContain(f.id);
    }
    const r = await list('type=eq,bruteforce&order=-display_id&per_page=1000', 'findings');
    const want = findings.filter((f) => f.type === 'bruteforce');
    expect(want.length).toBeGreaterThan(0);
    expect(r.total).toBe(want.length);
    expectOrdered(r.objects, [['display_id', 'desc']]);
    const like = await list(`title=${enc('like,ПАРОЛ')}&per_page=1000`, 'findings');
    expect(like.objects.map((x) => x.id).sort()).toEqual(findings.filter((f) => low(f.title).includes('парол')).map((f) => f.id).sort());
  });

  it('serviceAssets: the asset fields, total = the v2 count, nested responsible_group filter, paging', async () => {
    const v2 = await srv.call('POST', `${V2}/service_assets/search`, search({ limit: 0 }));
    const assets = (await list('per_page=1000', 'serviceAssets')).objects;
    expect(assets.length).toBe(v2.body.total);
    for (const a of assets) for (const k of ASSET_FIELDS) expect(a, k).toHaveProperty(k);
    const web = await list('name=like,web&per_page=1000', 'serviceAssets');
    expect(web.objects.map((x) => x.id).sort()).toEqual(assets.filter((a) => low(a.name).includes('web')).map((a) => a.id).sort());
    const dbaId = [...groups.entries()].find(([, n]) => n.includes('СУБД'))![0];
    const nested = await list(`responsible_group.name=${enc('like,субд')}&per_page=1000`, 'serviceAssets');
    const want = assets.filter((a) => a.responsible_group_id === dbaId).map((a) => a.id).sort();
    expect(want.length).toBeGreaterThan(0);
    expect(nested.objects.map((x) => x.id).sort()).toEqual(want);
    const p2 = await list('per_page=25&page=2&order=name', 'serviceAssets');
    expect(p2.total).toBe(assets.length);
    expect(p2.objects.map((a) => a.name)).toEqual(assets.map((a) => a.name as string).sort().slice(25, 50));
    await expect400('value=gt,high', ['value'], 'serviceAssets');
  });
});

// ------------------------------------------------------------------ writes

/** A fresh incident in the main instance (POST /data/v1/create on the main port). */
async function newIncident(fields: Record<string, unknown> = {}): Promise<string> {
  const res = await srv.call('POST', '/data/v1/create', { ServiceAssetFindingDBFields: { Title: 'Тестовый инцидент', ...fields } });
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.body)).toEqual(['id']);
  return res.body.id as string;
}

async function v2Incident(id: string): Promise<any> {
  const r = await srv.call('GET', `${V2}/service_asset_findings/${id}?relations=`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

async function changesOf(id: string): Promise<any[]> {
  const r = await srv.call(
    'POST',
    `${V2}/service_asset_finding_status_changes/search`,
    search({ filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: id }], ordering: [{ field: 'created_at', direction: 'asc' }], limit: 100 }),
  );
  expect(r.status, r.text).toBe(200);
  return r.body.items;
}

async function publicOne(id: string): Promise<any> {
  const r = await list(`id=eq,${id}`);
  expect(r.total).toBe(1);
  return r.objects[0];
}

const USER = '3c9d2f4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f';

describe('PUT incidents/update/status', () => {
  it('accepts all eight statuses; each change writes a status change row (who, from, to) and the contract side effects', async () => {
    const id = await newIncident({ Status: 'new' });
    const first = await v2Incident(id);
    expect(first.status).toBe('new');
    expect(first.acknowledged_at).toBeNull();
    expect(first.reopened_at).toBeNull();
    expect(first.c_reopened_count).toBe(0);
    const start = await changesOf(id);
    expect(start.map((c) => c.status)).toEqual(['new']);

    // [to, reopened count after the change]
    const steps: [string, number][] = [
      ['assigned_customer', 0],
      ['working_customer', 0],
      ['feedback_required', 0],
      ['verify_close', 0],
      ['risk_accepted', 0],
      ['new', 1], // risk_accepted -> an open status: reopened
      ['closed', 1],
      ['invalid', 1], // closed -> invalid: still final, not a reopening
      ['working_customer', 2], // invalid -> open: reopened
    ];
    let prev = 'new';
    let acknowledged: string | null = null;
    let reopenedAt: string | null = null;
    for (const [to, reopened] of steps) {
      const res = await srv.call('PUT', `${PUB}/incidents/update/status`, { id, status: to }, { 'Pgr-User-Id': USER });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({});
      const rec = await v2Incident(id);
      expect(rec.status).toBe(to);
      // leaving `new` sets acknowledged_at (once)
      expect(rec.acknowledged_at, `after ${prev} -> ${to}`).toMatch(TS6);
      if (acknowledged) expect(rec.acknowledged_at).toBe(acknowledged);
      acknowledged = rec.acknowledged_at;
      expect(rec.c_reopened_count, `after ${prev} -> ${to}`).toBe(reopened);
      const wasFinal = ['closed', 'invalid', 'risk_accepted'].includes(prev);
      const isOpen = !['closed', 'invalid', 'risk_accepted'].includes(to);
      if (wasFinal && isOpen) {
        expect(rec.reopened_at, `reopened_at after ${prev} -> ${to}`).toMatch(TS6);
        if (reopenedAt) expect(rec.reopened_at >= reopenedAt).toBe(true);
        reopenedAt = rec.reopened_at;
      } else {
        expect(rec.reopened_at).toBe(reopenedAt);
      }
      const changes = await changesOf(id);
      const last = changes.at(-1);
      expect(last.status).toBe(to);
      expect(last.previous_status).toBe(prev);
      expect(last.user_id).toBe(USER);
      expect(last.created_at).toMatch(TS6);
      const pub = await publicOne(id);
      expect(pub.status).toBe(to);
      expect(pub.reopened_count).toBe(reopened);
      expect(pub.last_status_change).toBe(last.created_at);
      prev = to;
    }
    const changes = await changesOf(id);
    expect(changes.map((c) => c.status)).toEqual(['new', ...steps.map(([s]) => s)]);
    expect(new Set(changes.map((c) => c.status)).size).toBe(8);
  });

  it('404 for an unknown incident, 400 for a status outside the eight, a missing status or a bad id', async () => {
    const before = (await srv.call('POST', `${V2}/service_asset_finding_status_changes/search`, search({ limit: 0 }))).body.total;
    const nf = await srv.call('PUT', `${PUB}/incidents/update/status`, { id: UNKNOWN_ID, status: 'closed' });
    expect(nf.status, nf.text).toBe(404);
    expect(nf.body).toEqual({ error: 'not found', error_code: 404 });
    const id = await newIncident();
    for (const body of [{ id, status: 'open' }, { id, status: 'Closed' }, { id, status: '' }, { id }, { id, status: 3 }]) {
      const res = await srv.call('PUT', `${PUB}/incidents/update/status`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code).toBe(400);
      expect(res.body.error).toContain('status');
    }
    const bad = await srv.call('PUT', `${PUB}/incidents/update/status`, { id: 'not-a-uuid', status: 'closed' });
    expect(bad.status).toBe(400);
    expect((await v2Incident(id)).status).toBe('new');
    const after = (await srv.call('POST', `${V2}/service_asset_finding_status_changes/search`, search({ limit: 0 }))).body.total;
    expect(after, 'only the new incident\'s own creation row was added').toBe(before + 1);
  });
});

describe('PUT incidents/update/critical', () => {
  const BANDS: [number, string][] = [
    [0, 'none'],
    [0.1, 'low'],
    [3.9, 'low'],
    [4.0, 'medium'],
    [6.9, 'medium'],
    [7.0, 'high'],
    [8.9, 'high'],
    [9.0, 'critical'],
    [10.0, 'critical'],
  ];

  it('sets risklevel and risk by the CVSS bands at every boundary', async () => {
    const id = await newIncident({ Risklevel: 5 });
    expect((await v2Incident(id)).risk).toBe('medium');
    for (const [level, band] of BANDS) {
      const res = await srv.call('PUT', `${PUB}/incidents/update/critical`, { id, risklevel: level });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({});
      const rec = await v2Incident(id);
      expect(rec.risklevel, `level ${level}`).toBeCloseTo(level, 5);
      expect(rec.risk, `level ${level}`).toBe(band);
      const pub = await publicOne(id);
      expect(pub.risk).toBe(band);
    }
  });

  it('400 below 0 and above 10 or not a number (nothing changes), 404 for an unknown incident', async () => {
    const id = await newIncident({ Risklevel: 7.5 });
    for (const risklevel of [-0.1, 10.1, '5', null]) {
      const res = await srv.call('PUT', `${PUB}/incidents/update/critical`, { id, risklevel });
      expect(res.status, `${risklevel}: ${res.text}`).toBe(400);
      expect(res.body.error).toContain('risklevel');
    }
    const rec = await v2Incident(id);
    expect(rec.risklevel).toBe(7.5);
    expect(rec.risk).toBe('high');
    const nf = await srv.call('PUT', `${PUB}/incidents/update/critical`, { id: UNKNOWN_ID, risklevel: 3 });
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({ error: 'not found', error_code: 404 });
  });
});

describe('POST /data/v1/create (ServiceAssetFindingDBFields)', () => {
  let main: string;
  beforeAll(async () => {
    main = await mainId(srv);
  });

  const routed = (body: unknown, headers: Record<string, string> = {}) =>
    srv.call('POST', '/data/v1/create', body, { PgrSelectedInstance: main, ...headers }, srv.routing);

  function fullBody() {
    const inc = all.find((o) => o.service_asset_id && o.finding_id && o.last_occurrence_id)!;
    const id = crypto.randomUUID();
    const fields = {
      Id: id,
      Description: 'Описание, с запятой',
      RiskImpact: 'Компрометация узла',
      Solution: 'Обновить ПО',
      Mitigation: 'Ограничить доступ',
      Status: 'assigned_customer',
      Risklevel: 7.5,
      ServiceAssetId: inc.service_asset_id,
      CreatedAt: '2026-03-04T05:06:07.123456Z',
      ReopenedAt: '2026-03-05T00:00:00Z',
      UpdatedAt: '2026-03-06T01:02:03.5+03:00',
      FindingId: inc.finding_id,
      AnalysisOutput: 'Вывод анализа',
      Synopsis: 'Кратко',
      Title: 'Создан через /data/v1/create',
      Risk: 'high',
      AcknowledgedAt: '2026-03-04T06:00:00.000001Z',
      AlertType: 'manual',
      ClientNote: 'Заметка клиента',
      InternalNote: 'Внутренняя заметка',
      External: true,
      ImmediateActionScore: 3.25,
      ThroughputPeriod: 'grace',
      ThroughputPeriodChange: '2026-03-04T07:00:00Z',
      CustomerCreated: true,
      CVisibleSince: '2026-03-04T05:06:07Z',
      CVisibleSinceInDays: 12,
      CReopenedCount: 2,
      CLastCustomerStatusChange: '2026-03-04T08:00:00Z',
      CCustomerRetentionTime: 90,
      LogmuleIdentifier: 'logmule-42',
      CRemoteExploitable: true,
      COccurrenceCount: 5,
      LastOccurrenceId: inc.last_occurrence_id,
      ItsmLastSyncedAt: '2026-03-04T09:00:00Z',
      ItsmSyncStatus: 'scheduled',
      ExternalId: 4242,
      ItsmSyncError: 'timeout',
      UserId: 'user-1',
      UpdatedBy: 'user-2',
      GroupId: 'group-3',
      AcknowledgedBy: 'user-4',
      CreatedByCustomer: 'customer-5',
      EditedBy: 'editor-6',
      IncidentGroupId: 'incident-group-7',
      DisplayId: 900001,
    };
    const expected: Record<string, unknown> = {
      id,
      description: fields.Description,
      risk_impact: fields.RiskImpact,
      solution: fields.Solution,
      mitigation: fields.Mitigation,
      status: 'assigned_customer',
      risklevel: 7.5,
      service_asset_id: inc.service_asset_id,
      created_at: '2026-03-04T05:06:07.123456Z',
      reopened_at: '2026-03-05T00:00:00.000000Z',
      updated_at: '2026-03-05T22:02:03.500000Z',
      finding_id: inc.finding_id,
      analysis_output: fields.AnalysisOutput,
      synopsis: fields.Synopsis,
      title: fields.Title,
      risk: 'high',
      acknowledged_at: '2026-03-04T06:00:00.000001Z',
      alert_type: 'manual',
      client_note: fields.ClientNote,
      internal_note: fields.InternalNote,
      external: true,
      immediate_action_score: 3.25,
      throughput_period: 'grace',
      throughput_period_change: '2026-03-04T07:00:00.000000Z',
      customer_created: true,
      c_visible_since: '2026-03-04T05:06:07.000000Z',
      c_visible_since_in_days: 12,
      c_reopened_count: 2,
      c_last_customer_status_change: '2026-03-04T08:00:00.000000Z',
      с_customer_retention_time: 90,
      logmule_identifier: 'logmule-42',
      c_remote_exploitable: true,
      c_occurrence_count: 5,
      last_occurrence_id: inc.last_occurrence_id,
      itsm_last_synced_at: '2026-03-04T09:00:00.000000Z',
      itsm_sync_status: 'scheduled',
      external_id: 4242,
      itsm_sync_error: 'timeout',
      user_id: 'user-1',
      updated_by: 'user-2',
      group_id: 'group-3',
      acknowledged_by: 'user-4',
      created_by_customer: 'customer-5',
      edited_by: 'editor-6',
      incident_group_id: 'incident-group-7',
      display_id: 900001,
    };
    return { fields, expected };
  }

  it('through the routing port with PgrSelectedInstance: every field, typed, round-trips to the v2 record', async () => {
    const { fields, expected } = fullBody();
    expect(Object.keys(fields)).toHaveLength(46);
    const res = await routed({ ServiceAssetFindingDBFields: fields });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0].id).toBe(main);
    expect(res.body[0].status_code).toBe(200);
    expect(res.body[0].error).toBe(0);
    expect(res.body[0].data).toEqual({ id: fields.Id });
    const rec = await v2Incident(fields.Id);
    const differ = Object.fromEntries(Object.entries(expected).filter(([k, v]) => JSON.stringify(rec[k]) !== JSON.stringify(v)).map(([k, v]) => [k, { sent: v, stored: rec[k] }]));
    expect(differ, 'fields whose stored value differs from the one sent').toEqual({});
    expect(Object.keys(expected)).toContain('с_customer_retention_time');
    const pub = await publicOne(fields.Id);
    expect(pub.customer_retention_time).toBe(90);
    expect(pub.service_asset_name).toBe(pub.service_asset.name);
  });

  it('accepts the fields directly (without the wrapper); Go zero values are "not set"', async () => {
    const id = crypto.randomUUID();
    const res = await routed({ Id: id, Title: 'Нулевые значения', ReopenedAt: '0001-01-01T00:00:00Z', AcknowledgedAt: '0001-01-01T00:00:00Z', ServiceAssetId: '', FindingId: '', DisplayId: 0, Status: '', Risk: '' });
    expect(res.status, res.text).toBe(200);
    expect(res.body[0].data).toEqual({ id });
    const rec = await v2Incident(id);
    expect(rec.title).toBe('Нулевые значения');
    expect(rec.reopened_at).toBeNull();
    expect(rec.acknowledged_at).toBeNull();
    expect(rec.service_asset_id).toBeNull();
    expect(rec.finding_id).toBeNull();
    expect(rec.status).toBe('new');
    expect(rec.risk).toBe('none');
    expect(Number.isInteger(rec.display_id) && rec.display_id > 0).toBe(true);
  });

  it('accepts a Go client\'s struct with every field at its zero value', async () => {
    const zero: Record<string, unknown> = {};
    const { fields } = fullBody();
    for (const [k, v] of Object.entries(fields)) {
      zero[k] = typeof v === 'number' ? 0 : typeof v === 'boolean' ? false : /At$|Change$|Since$/.test(k) ? '0001-01-01T00:00:00Z' : '';
    }
    const res = await routed({ ServiceAssetFindingDBFields: zero });
    expect(res.status, res.text).toBe(200);
    const id = res.body[0].data.id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const rec = await v2Incident(id);
    expect(rec.status).toBe('new');
    expect(rec.risk).toBe('none');
    expect(rec.display_id).toBeGreaterThan(0);
    expect(rec.created_at).toMatch(TS6);
    expect(rec.created_at.startsWith('0001')).toBe(false);
    for (const k of ['reopened_at', 'acknowledged_at', 'throughput_period_change', 'c_visible_since', 'c_last_customer_status_change', 'itsm_last_synced_at', 'service_asset_id', 'finding_id', 'last_occurrence_id']) {
      expect(rec[k], k).toBeNull();
    }
  });

  it('a value of the wrong type is 400 naming the field (under data, the outer status 400)', async () => {
    const before = (await list('per_page=1')).total;
    const cases: [Record<string, unknown>, string][] = [
      [{ Risklevel: '5' }, 'Risklevel'],
      [{ Risklevel: 11 }, 'Risklevel'],
      [{ External: 'true' }, 'External'],
      [{ CReopenedCount: 1.5 }, 'CReopenedCount'],
      [{ CCustomerRetentionTime: '90' }, 'CCustomerRetentionTime'],
      [{ CreatedAt: 'yesterday' }, 'CreatedAt'],
      [{ Status: 'open' }, 'Status'],
      [{ ServiceAssetId: 'srv-1' }, 'ServiceAssetId'],
      [{ Title: 42 }, 'Title'],
      [{ DisplayId: '7' }, 'DisplayId'],
      [{ NoSuchField: 'x' }, 'NoSuchField'],
    ];
    for (const [fields, name] of cases) {
      for (const body of [{ ServiceAssetFindingDBFields: fields }, fields]) {
        const res = await routed(body);
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
        expect(res.body[0].status_code).toBe(400);
        expect(res.body[0].data.error_code).toBe(400);
        expect(res.body[0].data.error, JSON.stringify(body)).toContain(name);
      }
    }
    expect((await list('per_page=1')).total, 'nothing was created').toBe(before);
  });

  it('without PgrSelectedInstance on the routing port: 400; an unknown instance: 404', async () => {
    const before = (await list('per_page=1')).total;
    const missing = await srv.call('POST', '/data/v1/create', { Title: 'x' }, {}, srv.routing);
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body).toEqual({ error: expect.stringContaining('PgrSelectedInstance'), error_code: 400 });
    const unknown = await routed({ Title: 'x' }, { PgrSelectedInstance: UNKNOWN_ID });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'instance not found', error_code: 404 });
    expect((await list('per_page=1')).total).toBe(before);
  });

  it('through the main port creates in the main instance and answers {id}', async () => {
    const res = await srv.call('POST', '/data/v1/create', { ServiceAssetFindingDBFields: { Title: 'Через основной порт', Risklevel: 9.5 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const rec = await v2Incident(res.body.id);
    expect(rec.title).toBe('Через основной порт');
    expect(rec.risk).toBe('critical');
    const routedRead = await srv.call('GET', `${V2}/service_asset_findings/${res.body.id}?relations=`, undefined, { PgrSelectedInstance: main }, srv.routing);
    expect(routedRead.status).toBe(200);
    expect(routedRead.body[0].data.id).toBe(res.body.id);
  });
});
