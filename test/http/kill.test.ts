// kill -9 of the server in the middle of an import and of mass operations, at a random moment:
// the database is whole (PRAGMA integrity_check, foreign keys, every search index), its schema
// is as it was (the import's dropped triggers and indexes come back with the rollback), and
// every operation is all or nothing (an acknowledged one all). KILL_RUNS per scenario (1 here;
// `npm run test:robust` kills 100 times).
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptySearch } from '../../src-shared/schemas/search';
import { serve, type ServeProcess } from '../helpers/cli';
import { databaseProblems, schemaOf, type Schema } from '../helpers/db-check';
import { copyDemoDatabase } from '../helpers/seed';

const RUNS = Number(process.env.KILL_RUNS ?? 1);
const KEY = 'kill-test-key-0123456789';
const IMPORT_ROWS = 20_000;

let dir: string;
let template: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-kill-'));
  template = copyDemoDatabase(path.join(dir, 'template.sqlite'));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const figures = { kills: 0, midway: 0, corrupt: 0, half: 0 };
afterAll(() => {
  console.log(`kill -9: ${figures.kills} kills (${figures.midway} while the operation was unanswered); corrupt databases: ${figures.corrupt}; half-written operations: ${figures.half}`);
});

let copies = 0;
function freshCopy(): string {
  const file = path.join(dir, `run-${++copies}.sqlite`);
  fs.copyFileSync(template, file);
  return file;
}

function removeCopy(file: string): void {
  for (const f of fs.readdirSync(dir)) if (f.startsWith(path.basename(file))) fs.rmSync(path.join(dir, f), { force: true });
}

async function start(db: string): Promise<ServeProcess> {
  return serve(['--db', db, '--port', '0', '--routing-port', '0', '--seed', 'none', '--api-key', KEY]);
}

function kill(s: ServeProcess): Promise<unknown> {
  figures.kills++;
  return s.stop('SIGKILL');
}

const call = async (s: ServeProcess, method: string, urlPath: string, body?: unknown) => {
  const res = await fetch(s.ready.main + urlPath, { method, headers: { PgrApiKey: KEY, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};

/** Whether the database is whole (test/helpers/db-check.ts); counted when it is not. */
function checkWhole(file: string, schemaBefore: Schema): string[] {
  const problems = databaseProblems(file, schemaBefore);
  if (problems.length) figures.corrupt++;
  return problems;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kill -9 during an import', () => {
  it(`${RUNS} kill(s) at random moments: the database whole, the import all or nothing`, async () => {
    const lines: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < IMPORT_ROWS; i++) {
      const id = `11111111-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      ids.push(id);
      lines.push(JSON.stringify({ id, title: `Импорт ${i} узел srv-${i % 97}`, status: 'new', risklevel: (i % 100) / 10 }));
    }
    const upload = `${lines.join('\n')}\n`;
    for (let run = 0; run < RUNS; run++) {
      const file = freshCopy();
      const probe = new Database(file, { readonly: true });
      const before = (probe.prepare('SELECT COUNT(*) AS n FROM service_asset_findings').get() as { n: number }).n;
      probe.close();
      const schemaBefore = schemaOf(file);
      const s = await start(file);
      const res = await fetch(`${s.ready.main}/console/v1/import?kind=service_asset_findings`, { method: 'POST', headers: { PgrApiKey: KEY }, body: upload });
      expect(res.status).toBe(202);
      const job = (await res.json()) as { id: string };
      await sleep(Math.random() * 6000);
      const state = (await call(s, 'GET', `/console/v1/jobs/${job.id}`)).body?.state;
      if (state === 'running') figures.midway++;
      await kill(s);

      expect(checkWhole(file, schemaBefore), `run ${run}`).toEqual([]);
      const db = new Database(file, { readonly: true });
      const after = (db.prepare('SELECT COUNT(*) AS n FROM service_asset_findings').get() as { n: number }).n;
      const imported = (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE id IN (SELECT value FROM json_each(?))`).get(JSON.stringify(ids)) as { n: number }).n;
      const indexed = (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?`).get('"Импорт"') as { n: number }).n;
      db.close();
      const whole = (imported === 0 && after === before) || (imported === IMPORT_ROWS && after === before + IMPORT_ROWS && indexed === IMPORT_ROWS);
      if (!whole) figures.half++;
      expect({ run, state, imported, after: after - before, indexed }).toEqual({ run, state, imported: expect.toSatisfy((n: number) => n === 0 || n === IMPORT_ROWS), after: imported, indexed: imported });
      if (state === 'done') expect(imported).toBe(IMPORT_ROWS);

      // The database serves again.
      const again = await start(file);
      const found = await call(again, 'POST', '/cruddy/v2/service_asset_findings/search', { ...emptySearch(1), virtual_search: { value: 'Импорт 1999', strict: false } });
      expect(found.status).toBe(200);
      expect(found.body.total).toBe(imported ? 11 : 0);
      await again.stop();
      removeCopy(file);
    }
  }, 600_000 + RUNS * 60_000);
});

describe('kill -9 during mass operations', () => {
  it(`${RUNS} kill(s) at random moments: the database whole, each mass operation all or nothing`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const file = freshCopy();
      const schemaBefore = schemaOf(file);
      const s = await start(file);
      const incidents = (await call(s, 'POST', '/cruddy/v2/service_asset_findings/search', emptySearch(1000))).body.items.map((x: { id: string }) => x.id) as string[];
      expect(incidents.length).toBeGreaterThan(100);
      type Sent = { kind: string; tag: string; ids: string[]; answered: boolean };
      const sent: Sent[] = [];
      let stop = false;
      const loop = (async () => {
        for (let i = 0; !stop; i++) {
          const tag = `run${run}-op${i}`;
          const kind = ['fields', 'field', 'create'][i % 3]!;
          const op: Sent = { kind, tag, ids: kind === 'create' ? Array.from({ length: 1000 }, () => crypto.randomUUID()) : incidents, answered: false };
          sent.push(op);
          const body =
            kind === 'fields'
              ? { ids: incidents, fields: { internal_note: tag, risklevel: (i % 100) / 10 } }
              : kind === 'field'
                ? { ids: incidents, field: 'client_note', value: tag }
                : op.ids.map((id, j) => ({ id, name: `${tag}-${j}` }));
          const url = kind === 'create' ? '/cruddy/v2/software_groups/mass_create' : '/cruddy/v2/service_asset_findings/mass_update';
          try {
            const res = await call(s, 'POST', url, body);
            if (res.status === 200 || res.status === 201) op.answered = true;
          } catch {
            return; // the server is gone
          }
        }
      })();
      await sleep(300 + Math.random() * 3000);
      stop = true;
      const midway = sent.some((o) => !o.answered);
      if (midway) figures.midway++;
      await kill(s);
      await loop;

      expect(checkWhole(file, schemaBefore), `run ${run}`).toEqual([]);
      const db = new Database(file, { readonly: true });
      const written = sent.map((op) =>
        op.kind === 'create'
          ? (db.prepare(`SELECT COUNT(*) AS n FROM software_groups WHERE id IN (SELECT value FROM json_each(?))`).get(JSON.stringify(op.ids)) as { n: number }).n
          : (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings WHERE ${op.kind === 'fields' ? 'internal_note' : 'client_note'} = ?`).get(op.tag) as { n: number }).n,
      );
      sent.forEach((op, i) => {
        const n = written[i]!;
        if (n !== 0 && n !== op.ids.length) figures.half++;
        expect([0, op.ids.length], `${op.tag} (${op.kind}): ${n} of ${op.ids.length} written`).toContain(n);
        if (op.answered && op.kind === 'create') expect(n, `${op.tag} was acknowledged`).toBe(op.ids.length);
      });
      // An update writes its tag on every incident; a later committed one of the same kind writes
      // over it. So of each kind exactly the last committed operation shows: the last acknowledged
      // one, or one sent after it that committed before the kill.
      for (const kind of ['fields', 'field']) {
        const ofKind = sent.map((op, i) => ({ op, n: written[i]! })).filter((x) => x.op.kind === kind);
        const shown = ofKind.filter((x) => x.n > 0);
        expect(shown.length, `${kind}: operations showing`).toBeLessThanOrEqual(1);
        const lastAnswered = ofKind.map((x) => x.op.answered).lastIndexOf(true);
        if (lastAnswered >= 0) {
          expect(shown.length, `${kind}: the acknowledged update is lost`).toBe(1);
          expect(ofKind.indexOf(shown[0]!)).toBeGreaterThanOrEqual(lastAnswered);
        }
      }
      db.close();
      removeCopy(file);
    }
  }, 600_000 + RUNS * 60_000);
});
