// Writes src-shared/contract/examples.json: for every operation of the contract, a request built
// from the demo data (src-main/store/seed.ts) and the answer a demo server gives it, in the order
// they were sent (creates before deletes). `npm run examples` runs it; test/http/openapi-traffic
// replays them against a new demo server and checks every answer against /openapi.json. The
// statuses and answer shapes are compared with the reviewed ones (scripts/examples-review.ts):
// `npm run examples -- --accept` takes the new ones as reviewed.
//
// The server listens on the platform's ports when they are free (so the examples show the
// addresses a user sees); the replay puts its own in their place.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { operations, type OperationDef, type OperationExample } from '../src-shared/contract/index';
import { fillPath } from '../src-shared/contract/operation';
import { fieldsOf, getResource, relationsOf, type ResourceDef } from '../src-shared/resources/index';
import { LOCAL_USER_ID } from '../src-shared/schemas/people';
import { emptySearch } from '../src-shared/schemas/search';
import { startServer } from '../src-main/server/start';
import { readReviewed, REVIEWED_FILE, reviewChanges, reviewedOf, writeReviewed } from './examples-review';

const OUT = path.resolve(__dirname, '../src-shared/contract/examples.json');
const KEY = 'demo-key-0123456789';
const USER = '7d1f4c2a-3b5e-4f60-9a71-8c2d3e4f5a6b';
/** The snapshot instance of the examples (console.snapshot), which the sync examples work on. */
const SNAPSHOT = 'Снимок';

/** A path of the main port on /console/v1/route, as its one `{path}` parameter (slashes encoded). */
const routed = (path: string): string => `/console/v1/route/${encodeURIComponent(path)}`;

/** A uuid made from a name, so the examples are the same on every run. */
function idFor(name: string): string {
  const h = crypto.createHash('sha256').update(`radar-examples/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Long lists kept to their first two elements (totals stay as answered). */
function trim(v: unknown, depth = 0): unknown {
  if (Array.isArray(v)) return v.slice(0, 2).map((x) => trim(x, depth + 1));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trim(x, depth + 1)]));
  return v;
}

type Input = Omit<OperationExample, 'status' | 'answer'>;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-examples-'));
  const free = async (port: number) => {
    const net = await import('node:net');
    return new Promise<boolean>((resolve) => {
      const s = net.createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  };
  const ports = (await free(9000)) && (await free(9009)) ? { port: 9000, routingPort: 9009 } : { port: 0, routingPort: 0 };
  const srv = await startServer({ db: path.join(dir, 'radar.sqlite'), ...ports, apiKey: KEY, seed: 'demo', scan: { ports: [], timeoutMs: 100, budgetMs: 1000 } });
  const examples: Record<string, OperationExample> = {};
  const send = async (op: OperationDef, input: Input): Promise<OperationExample> => {
    for (const step of input.before ?? []) {
      const res = await fetch(`${srv.main}${step.path}`, {
        method: step.method,
        headers: { PgrApiKey: KEY, ...(step.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...step.headers },
        body: step.body === undefined ? undefined : JSON.stringify(step.body),
      });
      if (res.status >= 300) throw new Error(`${op.operationId}: the scene's ${step.method} ${step.path} answered ${res.status} ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer().catch(() => undefined);
    }
    const qs = new URLSearchParams(input.query ?? {}).toString();
    // Path parameters expanded as the contract declares them (a routed path is one parameter, its slashes encoded).
    const url = `${srv.main}${fillPath(op.path, input.params)}${qs ? `?${qs}` : ''}`;
    const raw = typeof input.body === 'string';
    const res = await fetch(url, {
      method: op.method,
      headers: { PgrApiKey: KEY, ...(input.body === undefined ? {} : { 'Content-Type': raw ? 'application/octet-stream' : 'application/json' }), ...input.headers },
      body: input.body === undefined ? undefined : raw ? (input.body as string) : JSON.stringify(input.body),
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const answer = text === '' ? undefined : type.includes('json') ? trim(JSON.parse(text)) : text.split('\n').slice(0, 3).join('\n');
    const mediaType = type.split(';')[0]!.trim();
    const ex: OperationExample = { summary: 'from the demo data', ...input, status: res.status, ...(answer === undefined ? {} : { answer }), ...(mediaType && !mediaType.includes('json') ? { mediaType } : {}) };
    examples[op.operationId] = ex;
    if (res.status >= 500) throw new Error(`${op.operationId}: ${res.status} ${text.slice(0, 300)}`);
    return ex;
  };

  const store = srv.store;
  const sample = (r: ResourceDef): Record<string, unknown> => {
    const row = store.get1<{ id: string }>(`SELECT id FROM ${r.table} ORDER BY _rid LIMIT 1`);
    if (!row) throw new Error(`the demo data has no ${r.name}`);
    return store.get(r, row.id, []);
  };
  /**
   * A record to create: the sample's stored fields, unique values made unique. No id: the server
   * makes one, so the example can be sent again (from the reference's "try it", say).
   */
  const copyOf = (r: ResourceDef, n: string): Record<string, unknown> => {
    const s = sample(r);
    const out: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(r.fields)) {
      const v = s[name];
      if (def.readOnly || def.sequence || v === null || v === undefined || def.secret) continue;
      out[name] = def.unique && typeof v === 'string' ? `${v} (${n})`.slice(0, def.maxLength ?? 1000) : v;
    }
    if ('trace_id' in r.fields && !out.trace_id) out.trace_id = idFor(`trace/${r.name}/${n}`);
    return out;
  };
  const enumField = (r: ResourceDef) => Object.entries(r.fields).find(([, d]) => d.enum)?.[0] ?? r.label;

  const mainId = srv.manager.list().find((i) => i.kind === 'main')?.id;
  let downloadId: string | undefined;
  const later: [OperationDef, () => Input | Promise<Input>][] = [];
  const last: [OperationDef, () => Input | Promise<Input>][] = [];
  let jobId = '';
  let instanceId = '';
  let personId = '';

  for (const op of operations()) {
    const [head, verb] = [op.operationId.slice(0, op.operationId.lastIndexOf('.')), op.operationId.slice(op.operationId.lastIndexOf('.') + 1)];
    const resourceName = head.replace(/^cm\./, '').replace(/^logmule_go_/, 'engine_go_');
    const r = op.path.startsWith('/cruddy/v2/') || op.path.startsWith('/cm/api/v2/') ? (() => { try { return getResource(resourceName); } catch { return undefined; } })() : undefined;
    if (r) {
      const s = sample(r);
      const tag = op.operationId.replace(/\./g, '-');
      switch (verb) {
        case 'meta':
          await send(op, {});
          continue;
        case 'get':
          await send(op, { params: { id: s.id as string }, query: { relations: relationsOf(r).slice(0, 1).map(([n]) => n).join(',') } });
          continue;
        case 'search':
        case 'search_with_update_reload':
          await send(op, { body: { ...emptySearch(2), filters: [{ field: r.label, filter_type: 'equal', value: s[r.label] }] } });
          continue;
        case 'group':
          await send(op, { body: { group_field: enumField(r) } });
          continue;
        case 'update':
        case 'update_post': {
          const body: Record<string, unknown> = { id: s.id, [r.label]: s[r.label] };
          if (r.name === 'rules') Object.assign(body, { trace_id: idFor('trace/rules'), name: s.name, query: s.query });
          if (r.name === 'service_assets') Object.assign(body, { trace_id: idFor('trace/assets'), type: s.type, name: s.name, location: s.location ?? 'ЦОД-1' });
          if (r.name === 'custom_field_values') Object.assign(body, { created_at: s.created_at, updated_at: s.updated_at, custom_field_id: s.custom_field_id, service_asset_finding_id: s.service_asset_finding_id });
          await send(op, { body });
          continue;
        }
        case 'mass_update':
          await send(op, { body: { ids: [s.id], field: r.label, value: s[r.label] } });
          continue;
        case 'apply_config':
          await send(op, { params: { id: s.id as string } });
          continue;
        case 'create': {
          let body = copyOf(r, tag);
          const headers: Record<string, string> = {};
          if (r.name === 'occurrences') {
            delete body.id; // every field but the id and the timestamps (spec)
            for (const f of fieldsOf(r)) {
              if (f.source !== 'stored' || body[f.name] !== undefined) continue;
              if (f.def?.ref) body[f.name] = sample(getResource(f.def.ref)).id;
              else body[f.name] = f.kind === 'int' || f.kind === 'number' ? 0 : '';
            }
          }
          if (r.name === 'engine_go_rules_integration_actions') {
            headers['Pgr-User-Id'] = USER;
            body = { rule_id: s.rule_id, integration_script_id: s.integration_script_id, params: s.params, state: s.state };
          }
          const created = await send(op, { body, ...(Object.keys(headers).length ? { headers } : {}) });
          const id = (created.answer as { id?: string } | undefined)?.id;
          const del = operations().find((o) => o.operationId === `${head}.delete`);
          if (del && id) last.push([del, () => ({ params: { id } })]);
          continue;
        }
        case 'mass_create': {
          const items = [copyOf(r, `${tag}-1`), copyOf(r, `${tag}-2`)];
          const made = ((await send(op, { body: items })).answer as { items?: { id: string }[] } | undefined)?.items ?? [];
          if (made.length !== 2) throw new Error(`${op.operationId}: expected the two created records in the answer`);
          later.push([operations().find((o) => o.operationId === `${head}.mass_delete`)!, () => ({ body: { ids: [made[0]!.id] } })]);
          later.push([operations().find((o) => o.operationId === `${head}.delete_all`)!, () => ({ body: { filters: [{ field: 'id', filter_type: 'equal', value: made[1]!.id }] } })]);
          continue;
        }
        case 'delete':
        case 'mass_delete':
        case 'delete_all':
          continue; // after the creates (below)
      }
    }
    switch (op.operationId) {
      case 'sonar.services.scan':
      case 'sonar.services.scan_short':
        await send(op, { body: { ips: ['127.0.0.1'] } });
        break;
      case 'public.incidents.list':
        await send(op, { query: { status: 'in,new,assigned_customer', order: '-risklevel', per_page: '2' } });
        break;
      case 'public.findings.list':
        await send(op, { query: { type: 'eq,network_anomaly', per_page: '2' } });
        break;
      case 'public.service_assets.list':
        await send(op, { query: { value: 'eq,1', order: 'name', per_page: '2' } });
        break;
      case 'public.incidents.update_status':
        await send(op, { body: { id: sample(getResource('service_asset_findings')).id, status: 'working_customer' } });
        break;
      case 'public.incidents.update_critical':
        await send(op, { body: { id: sample(getResource('service_asset_findings')).id, risklevel: 7.5 } });
        break;
      case 'public.incidents.create': {
        const inc = sample(getResource('service_asset_findings'));
        await send(op, {
          body: { ServiceAssetFindingDBFields: { Title: 'Подбор пароля к SSH (пример)', Status: 'new', Risklevel: 6.5, FindingId: inc.finding_id, ServiceAssetId: inc.service_asset_id } },
        });
        break;
      }
      case 'openapi.document':
      case 'tenancy.instances.list':
      case 'karaken.instances.list':
      case 'console.instances.list':
      case 'console.instances.health':
      case 'console.jobs.list':
        later.push([op, () => ({})]);
        break;
      case 'console.instances.add': {
        const ex = await send(op, { body: { kind: 'local', name: 'Филиал', db_file: 'branch.sqlite' } });
        instanceId = (ex.answer as { id: string }).id;
        break;
      }
      case 'console.instances.update':
        later.push([op, () => ({ params: { id: instanceId }, body: { sort_order: 5 } })]);
        break;
      case 'console.instances.test':
        later.push([op, () => ({ params: { id: instanceId } })]);
        break;
      case 'console.instances.remove':
        last.push([op, () => ({ params: { id: instanceId } })]);
        break;
      case 'console.route.get':
        later.push([op, () => ({ params: { path: 'data/public/api/v1/findings' }, query: { per_page: '1' }, headers: { PgrSelectedInstance: mainId! } })]);
        break;
      case 'console.route.post':
        later.push([op, () => ({ params: { path: 'cruddy/v2/findings/search' }, headers: { PgrSelectedInstance: mainId! }, body: emptySearch(1) })]);
        break;
      case 'console.route.put':
        later.push([
          op,
          () => ({ params: { path: 'data/public/api/v1/incidents/update/status' }, headers: { PgrSelectedInstance: mainId! }, body: { id: sample(getResource('service_asset_findings')).id, status: 'feedback_required' } }),
        ]);
        break;
      case 'console.route.delete':
        later.push([op, () => ({ params: { path: `cruddy/v2/software_groups/${idFor('route/delete')}` }, headers: { PgrSelectedInstance: mainId! } })]);
        break;
      case 'console.route.patch':
        later.push([op, () => ({ params: { path: 'cruddy/v2/software_groups/update' }, headers: { PgrSelectedInstance: mainId! }, body: { id: idFor('route/patch') } })]);
        break;
      case 'console.incidents.set_status':
        await send(op, {
          headers: { 'Pgr-User-Id': USER },
          body: { ids: [sample(getResource('service_asset_findings')).id], status: 'verify_close', note: { subject: 'Устранено: пароль сменён', body: 'Учётная запись заблокирована, ключи SSH перевыпущены.' } },
        });
        break;
      // Last, so that no other example sees its change.
      case 'console.incidents.bulk.start':
        last.push([
          op,
          () => {
            // An owner set on every new incident of risk 9 and above (the confirmation named how many).
            const query = { filters: [{ field: 'status', filter_type: 'equal', value: 'new' }, { field: 'risklevel', filter_type: 'range', value: [9, null] }] };
            const n = store.get1<{ n: number }>(`SELECT count(*) AS n FROM service_asset_findings WHERE status = 'new' AND risklevel >= 9`)!.n;
            return { headers: { 'Pgr-User-Id': USER }, body: { query, change: { user_id: USER }, expected_total: n } };
          },
        ]);
        break;
      case 'console.incidents.bulk.get':
        last.push([
          op,
          async () => {
            const id = (examples['console.incidents.bulk.start']!.answer as { id: string }).id;
            // Shown finished: the job is followed to its end first.
            for (let i = 0; i < 200; i++) {
              const res = await fetch(`${srv.main}/console/v1/incidents/bulk/${id}`, { headers: { PgrApiKey: KEY } });
              if (((await res.json()) as { state: string }).state !== 'running') break;
              await new Promise((r) => setTimeout(r, 50));
            }
            return { params: { id } };
          },
        ]);
        break;
      case 'console.incidents.bulk.cancel':
        last.push([op, () => ({ params: { id: (examples['console.incidents.bulk.start']!.answer as { id: string }).id } })]);
        break;
      case 'console.compliance.tsvector':
        await send(op, { body: { texts: ['Adobe Photoshop 2024 25.5.1', 'openssh-server 1:9.2p1-2+deb12u3', 'КриптоПро CSP 5.0.12998'] } });
        break;
      case 'console.compliance.tsquery':
        await send(op, { body: { queries: ['(adobe & photoshop) | (gnu & gimp)', 'openssh-server & !client', 'teamviewer anydesk'] } });
        break;
      case 'console.compliance.match':
        await send(op, { body: { query: "teamviewer | anydesk | 'radmin':*", limit: 2 } });
        break;
      case 'console.compliance.check': {
        // The demo's set of rules for workstations (the resource examples add sets without rules).
        const set = store.get1<{ id: string }>(`SELECT s.id FROM rule_sets s WHERE s.create_service_asset_findings = 1 AND EXISTS (SELECT 1 FROM rule_set_rules l WHERE l.rule_set_id = s.id) ORDER BY (SELECT count(*) FROM rule_set_rules l WHERE l.rule_set_id = s.id) DESC, s._rid LIMIT 1`);
        await send(op, { body: { rule_set_ids: [set!.id], verdict: 'violated', limit: 2 } });
        break;
      }
      case 'console.stats.incidents':
        await send(op, { query: { status: 'in,new,closed', bucket: 'month' } });
        break;
      case 'console.import': {
        const page = await fetch(`${srv.main}/data/public/api/v1/findings?per_page=2`, { headers: { PgrApiKey: KEY } });
        const ex = await send(op, { query: { filename: 'findings.json', wait: '1' }, body: await page.text() });
        jobId = (ex.answer as { id: string }).id;
        break;
      }
      case 'console.jobs.get':
      case 'console.jobs.cancel':
        later.push([op, () => ({ params: { id: jobId } })]);
        break;
      case 'console.export':
        await send(op, { body: { resource: 'incidents', format: 'json', query: 'status=eq,new&order=-risklevel&per_page=2' } });
        break;
      case 'console.export_link':
        await send(op, { query: { resource: 'findings', format: 'csv', columns: 'display_id,title,type' } });
        break;
      case 'console.export_ticket': {
        const ex = await send(op, { body: { resource: 'incidents', format: 'csv', query: 'status=eq,new&order=-risklevel', columns: ['display_id', 'title', 'status'] } });
        downloadId = (ex.answer as { id: string }).id;
        break;
      }
      case 'console.export_download.get':
        later.push([op, () => ({ params: { id: downloadId! } })]);
        break;
      case 'console.export_download.cancel':
        last.push([op, () => ({ params: { id: downloadId! } })]);
        break;
      case 'console.people.list':
      case 'console.me.get':
        later.push([op, () => ({})]);
        break;
      case 'console.people.add': {
        const added = await send(op, { body: { name: 'Орлова Мария', role: 'SOC L1', email: 'orlova@example.org' } });
        personId = (added.answer as { id: string }).id;
        break;
      }
      case 'console.people.remove':
        last.push([op, () => ({ params: { id: personId } })]);
        break;
      case 'console.me.update':
        later.push([op, () => ({ body: { name: store.get1<{ name: string }>(`SELECT name FROM console_people WHERE id = ?`, [LOCAL_USER_ID])!.name } })]);
        break;
      case 'console.snapshot':
        later.push([op, () => ({ query: { wait: '1' }, body: { url: srv.main, api_key: KEY, name: SNAPSHOT, per_page: 500 } })]);
        break;
      // The snapshot of this server (console.snapshot, above) triaged offline: a status changed
      // and a note changed both there and here (a conflict at the push), pushed, pulled, resolved.
      case 'console.sync.list':
        later.push([
          op,
          () => {
            const [a, b] = store.all<{ id: string }>(`SELECT id FROM service_asset_findings WHERE status = 'new' ORDER BY display_id LIMIT 2`);
            const snapshotId = srv.manager.list().find((i) => i.name === SNAPSHOT)!.id;
            const offline = { PgrSelectedInstance: snapshotId };
            return {
              before: [
                { method: 'PUT', path: routed('data/public/api/v1/incidents/update/status'), headers: offline, body: { id: a!.id, status: 'working_customer' } },
                { method: 'PUT', path: routed('cruddy/v2/service_asset_findings/update'), headers: offline, body: { id: b!.id, internal_note: 'Клиент подтвердил плановые работы' } },
                { method: 'PUT', path: '/cruddy/v2/service_asset_findings/update', body: { id: b!.id, internal_note: 'Ждём ответа клиента' } },
              ],
            };
          },
        ]);
        break;
      case 'console.sync.status':
      case 'console.sync.cancel':
        later.push([op, () => ({ params: { instance: SNAPSHOT } })]);
        break;
      case 'console.sync.entries':
        later.push([op, () => ({ params: { instance: SNAPSHOT }, query: { state: 'pending', limit: '20' } })]);
        break;
      case 'console.sync.records':
        later.push([op, () => ({ params: { instance: SNAPSHOT }, query: { resource: 'service_asset_findings' } })]);
        break;
      case 'console.sync.push':
      case 'console.sync.pull':
        later.push([op, () => ({ params: { instance: SNAPSHOT }, query: { wait: '1' }, ...(op.operationId === 'console.sync.push' ? { body: {} } : {}) })]);
        break;
      case 'console.sync.resolve':
        later.push([
          op,
          async () => {
            const res = await fetch(`${srv.main}/console/v1/sync/${encodeURIComponent(SNAPSHOT)}/entries?state=conflict`, { headers: { PgrApiKey: KEY } });
            const conflict = ((await res.json()) as { items: { seq: number }[] }).items[0];
            if (!conflict) throw new Error('the push of the examples left no conflict to resolve');
            return { params: { instance: SNAPSHOT }, body: { entries: [conflict.seq], take: 'theirs' } };
          },
        ]);
        break;
      case 'console.sync.discard':
        later.push([
          op,
          () => {
            const [a] = store.all<{ id: string }>(`SELECT id FROM service_asset_findings WHERE status = 'new' ORDER BY display_id LIMIT 1`);
            const snapshotId = srv.manager.list().find((i) => i.name === SNAPSHOT)!.id;
            return {
              before: [{ method: 'PUT', path: routed('data/public/api/v1/incidents/update/critical'), headers: { PgrSelectedInstance: snapshotId }, body: { id: a!.id, risklevel: 8.1 } }],
              params: { instance: SNAPSHOT },
              body: {},
            };
          },
        ]);
        break;
      default:
        throw new Error(`no example for ${op.operationId}`);
    }
  }
  for (const [op, input] of [...later, ...last]) await send(op, await input());
  const doc = examples['openapi.document'];
  if (doc?.answer) {
    const d = doc.answer as { paths: Record<string, unknown> };
    doc.answer = { ...d, paths: Object.fromEntries(Object.entries(d.paths).slice(0, 1)), components: undefined };
  }
  const ordered = { servers: { main: srv.main, routing: srv.routing, apiKey: KEY }, examples };
  fs.writeFileSync(OUT, `${JSON.stringify(ordered, null, 1)}\n`);
  console.log(`${Object.keys(examples).length} examples of ${operations().length} operations written to ${path.relative(process.cwd(), OUT)}`);
  // The statuses and shapes of the answers are reviewed, not taken as they come: a change shows
  // here and fails test/unit/examples-reviewed.test.ts until it is accepted with --accept.
  const written = (JSON.parse(JSON.stringify(ordered)) as typeof ordered).examples;
  if (process.argv.includes('--accept')) {
    writeReviewed(written);
    console.log(`statuses and answer shapes accepted: ${path.relative(process.cwd(), REVIEWED_FILE)}`);
  } else {
    const changes = reviewChanges(readReviewed(), reviewedOf(written));
    if (changes.length) {
      console.log(`${changes.length} change(s) of status or answer shape against the reviewed ones:\n${changes.map((c) => `  ${c}`).join('\n')}`);
      console.log('review them; if they are meant, accept them with `npm run examples -- --accept`');
    } else console.log('statuses and answer shapes: as reviewed');
  }
  await srv.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
