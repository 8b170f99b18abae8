// The console's export with with_references: the file carries what its records refer to and
// imports back into a fresh instance through the console's own import.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ seed: 'demo' });
});
afterAll(async () => {
  await server?.stop();
});

describe('POST and GET /console/v1/export with_references', () => {
  it('NDJSON incidents carry their finding type and asset; imported as a new instance they all resolve', async () => {
    const res = await server.call('POST', '/console/v1/export', { resource: 'service_asset_findings', format: 'ndjson', search: { filters: [{ field: 'status', filter_type: 'equal', value: 'new' }] }, with_references: true });
    expect(res.status, res.text).toBe(200);
    const lines = res.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines.length).toBe(Number(res.headers.get('x-total-count')));
    for (const r of lines) {
      expect(r.finding).toMatchObject({ id: r.finding_id });
      expect(r.service_asset).toMatchObject({ id: r.service_asset_id });
    }
    const imported = await server.call('POST', '/console/v1/import?new_instance=Из%20выгрузки&filename=new.ndjson&wait=1', res.text, { 'Content-Type': 'application/x-ndjson' });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body).toMatchObject({ state: 'done', summary: { resources: { service_asset_findings: { inserted: lines.length } } } });
    const plain = await server.call('GET', '/console/v1/export?resource=service_asset_findings&format=ndjson&with_references=false');
    expect(JSON.parse(plain.text.split('\n')[0]!)).not.toHaveProperty('finding');
    const linked = await server.call('GET', '/console/v1/export?resource=incidents&format=json&query=per_page%3D2&with_references=1');
    expect(linked.status, linked.text).toBe(200);
    expect(JSON.parse(linked.text).objects[0]).toMatchObject({ finding: { id: expect.any(String) }, service_asset: { id: expect.any(String) } });
    const csv = await server.call('POST', '/console/v1/export', { resource: 'service_asset_findings', format: 'csv', with_references: true });
    expect(csv.status).toBe(400);
    expect(csv.body).toEqual({ error: 'records with their references are exported as json or ndjson, not csv', error_code: 400 });
  });
});
