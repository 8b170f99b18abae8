// The console's incident aggregates (GET /console/v1/stats/incidents) over a real socket, on the
// demo dataset: every figure is checked against the incidents themselves, read through the v2
// search and bucketed here independently of the server's SQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INCIDENT_STATUSES, riskBand } from '../../src-shared/resources/fields';
import { search, startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;
const STATS = '/console/v1/stats/incidents';
const SEARCH = '/cruddy/v2/service_asset_findings/search';

interface Stats {
  total: number;
  bucket: 'day' | 'week' | 'month';
  by_status: { status: string; count: number }[];
  by_risk: { risk: string; count: number }[];
  over_time: { bucket: string; status: string; risk: string; count: number }[];
}

interface Row {
  id: string;
  status: string;
  risk: string | null;
  risklevel: number;
  created_at: string;
  service_asset_id: string | null;
}

let all: Row[] = [];

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo' });
  const res = await srv.call('POST', SEARCH, search({ limit: 10_000, include_fields: ['id', 'status', 'risk', 'risklevel', 'created_at', 'service_asset_id'] }));
  expect(res.status, res.text).toBe(200);
  all = res.body.items;
  expect(all.length).toBe(res.body.total);
});

afterAll(async () => {
  await srv?.stop();
});

async function stats(query = ''): Promise<Stats> {
  const res = await srv.call('GET', `${STATS}${query ? `?${query}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.body as Stats;
}

const countBy = (rows: Row[], key: (r: Row) => string): Map<string, number> => {
  const m = new Map<string, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
  return m;
};

const bandOf = (r: Row): string => riskBand(r.risklevel);

/** The bucket start of a timestamp, computed with Date arithmetic (UTC). */
function bucketOf(ts: string, bucket: 'day' | 'week' | 'month'): string {
  const day = ts.slice(0, 10);
  if (bucket === 'day') return day;
  if (bucket === 'month') return `${day.slice(0, 7)}-01`;
  const d = new Date(`${day}T00:00:00Z`);
  const back = (d.getUTCDay() + 6) % 7;
  return new Date(d.getTime() - back * 86_400_000).toISOString().slice(0, 10);
}

function cube(rows: Row[], bucket: 'day' | 'week' | 'month'): Map<string, number> {
  return countBy(rows, (r) => `${bucketOf(r.created_at, bucket)}|${r.status}|${bandOf(r)}`);
}

const cubeOf = (s: Stats): Map<string, number> => new Map(s.over_time.map((o) => [`${o.bucket}|${o.status}|${o.risk}`, o.count]));

describe('GET /console/v1/stats/incidents', () => {
  it('counts every incident by status and by risk band, as the incidents themselves say', async () => {
    const s = await stats();
    expect(s.total).toBe(all.length);
    expect(new Map(s.by_status.map((x) => [x.status, x.count]))).toEqual(countBy(all, (r) => r.status));
    expect(new Map(s.by_risk.map((x) => [x.risk, x.count]))).toEqual(countBy(all, bandOf));
    // The demo dataset has every status; the answer lists them in the platform's order.
    expect(s.by_status.map((x) => x.status)).toEqual([...INCIDENT_STATUSES]);
    expect(s.by_risk.map((x) => x.risk)).toEqual(['none', 'low', 'medium', 'high', 'critical'].filter((b) => s.by_risk.some((x) => x.risk === b)));
  });

  for (const bucket of ['day', 'week', 'month'] as const) {
    it(`over_time by ${bucket}: the same cube as bucketing the incidents here`, async () => {
      const s = await stats(`bucket=${bucket}`);
      expect(s.bucket).toBe(bucket);
      expect(cubeOf(s)).toEqual(cube(all, bucket));
      expect(s.over_time.map((o) => o.bucket)).toEqual([...s.over_time.map((o) => o.bucket)].sort());
      for (const o of s.over_time) {
        expect(o.bucket).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        if (bucket === 'week') expect(new Date(`${o.bucket}T00:00:00Z`).getUTCDay()).toBe(1);
        if (bucket === 'month') expect(o.bucket.endsWith('-01')).toBe(true);
      }
    });
  }

  it('bucket=auto picks the unit from the span of the matches', async () => {
    const s = await stats('bucket=auto');
    const times = all.map((r) => Date.parse(r.created_at.slice(0, 10)));
    const days = (Math.max(...times) - Math.min(...times)) / 86_400_000;
    expect(s.bucket).toBe(days <= 62 ? 'day' : days <= 366 ? 'week' : 'month');
    expect(cubeOf(s)).toEqual(cube(all, s.bucket));
    // One day of matches is always in days.
    const day = all[0]!.created_at.slice(0, 10);
    const oneDay = await stats(`bucket=auto&created_at=gt,${day}T00:00:00Z&created_at=lt,${day}T23:59:59.999999Z`);
    expect(oneDay.bucket).toBe('day');
    expect(oneDay.over_time.every((o) => o.bucket === day)).toBe(true);
  });

  it('applies the standard filters and search as the public incident list does', async () => {
    const queries = [
      'status=eq,new',
      'status=in,new,assigned_customer&risk=in,high,critical',
      'status=notin,closed,invalid',
      `service_asset_id=eq,${all.find((r) => r.service_asset_id)!.service_asset_id}`,
      'risklevel=gt,6.9',
      'service_asset.name=like,srv',
      'search=пароль',
    ];
    for (const q of queries) {
      const s = await stats(q);
      const list = await srv.call('GET', `/data/public/api/v1/incidents?${q}&per_page=1000`);
      expect(list.status, list.text).toBe(200);
      expect(s.total, q).toBe(list.body.total);
      const ids = new Set((list.body.objects as { id: string }[]).map((o) => o.id));
      const rows = all.filter((r) => ids.has(r.id));
      expect(new Map(s.by_status.map((x) => [x.status, x.count])), q).toEqual(countBy(rows, (r) => r.status));
      expect(cubeOf(await stats(`${q}&bucket=week`)), q).toEqual(cube(rows, 'week'));
    }
    const none = await stats('status=eq,new&status=eq,closed');
    expect(none).toMatchObject({ total: 0, by_status: [], by_risk: [], over_time: [] });
  });

  it('follows a status change made through the public API', async () => {
    const before = await stats();
    const target = all.find((r) => r.status === 'new')!;
    const res = await srv.call('PUT', '/data/public/api/v1/incidents/update/status', { id: target.id, status: 'verify_close' });
    expect(res.status, res.text).toBe(200);
    const after = await stats();
    const n = (s: Stats, st: string) => s.by_status.find((x) => x.status === st)?.count ?? 0;
    expect(n(after, 'new')).toBe(n(before, 'new') - 1);
    expect(n(after, 'verify_close')).toBe(n(before, 'verify_close') + 1);
    expect(after.total).toBe(before.total);
    await srv.call('PUT', '/data/public/api/v1/incidents/update/status', { id: target.id, status: 'new' });
  });

  it('counts an incident in the band of its risk level after a risk change', async () => {
    const target = all.find((r) => riskBand(r.risklevel) === 'low')!;
    const before = await stats();
    const res = await srv.call('PUT', '/data/public/api/v1/incidents/update/critical', { id: target.id, risklevel: 9.6 });
    expect(res.status, res.text).toBe(200);
    const after = await stats();
    const n = (s: Stats, b: string) => s.by_risk.find((x) => x.risk === b)?.count ?? 0;
    expect(n(after, 'low')).toBe(n(before, 'low') - 1);
    expect(n(after, 'critical')).toBe(n(before, 'critical') + 1);
    await srv.call('PUT', '/data/public/api/v1/incidents/update/critical', { id: target.id, risklevel: target.risklevel });
    expect(await stats()).toEqual(before);
  });

  it('answers 400 naming the problem for a bad filter or bucket, and 401 without a key', async () => {
    const bad = await srv.call('GET', `${STATS}?status=between,a`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('between');
    const field = await srv.call('GET', `${STATS}?no_such_field=eq,1`);
    expect(field.status).toBe(400);
    expect(field.body.error).toContain('no_such_field');
    const bucket = await srv.call('GET', `${STATS}?bucket=year`);
    expect(bucket.status).toBe(400);
    const anon = await srv.call('GET', STATS, undefined, { PgrApiKey: '' });
    expect(anon.status).toBe(401);
  });

  it('is served per instance through the routing port, and fans out without PgrSelectedInstance', async () => {
    const direct = await stats('bucket=month');
    const list = await srv.call('GET', '/tenancy/instance/list');
    const main = list.body[0].id as string;
    const routed = await srv.call('GET', `/console/v1/route${STATS}?bucket=month`, undefined, { PgrSelectedInstance: main });
    expect(routed.status, routed.text).toBe(200);
    expect(routed.body).toHaveLength(1);
    expect(routed.body[0]).toMatchObject({ id: main, error: 0, status_code: 200, data: direct });
    const viaPort = await srv.call('GET', `${STATS}?bucket=month`, undefined, { PgrSelectedInstance: main }, srv.routing);
    expect(viaPort.body[0].data).toEqual(direct);
    const fan = await srv.call('GET', `/console/v1/route${STATS}?bucket=month`);
    expect(fan.status).toBe(200);
    expect(fan.body.map((e: { id: string }) => e.id)).toEqual(list.body.map((i: { id: string }) => i.id));
    expect(fan.body[0].data).toEqual(direct);
  });
});
