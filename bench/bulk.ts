// bench:bulk — a change over every incident of a query, as the server's job writes it, against
// the way the console sent it before over a local instance: pages of 500 incidents, each page one
// status change with its reason (POST /console/v1/incidents/status, its own transaction).
//
// One database file of BENCH_ROWS incidents (10,000) is made once; each run works on a fresh copy:
//   1. pages:  changeStatus over pages of 500, one transaction each (the baseline);
//   2. job:    IncidentBulk, one transaction, written in steps as the server's job writes them
//              (status-change rows, reasons, the search index brought up to date at the end);
//   3. job, risk level: the same job setting risklevel.
// Printed: medians over BENCH_RUNS (3), incidents/s and the ratio to the baseline measured in the
// same run. Nothing asserts on time (the machine may be shared).
import fs from 'node:fs';
import path from 'node:path';
import { getResource } from '../src-shared/resources/index';
import { openDatabase } from '../src-main/store/db';
import { IncidentBulk } from '../src-main/store/kinds/incidents/bulk';
import { changeStatus } from '../src-main/store/kinds/incidents/status';
import { Store } from '../src-main/store/store';
import { fmtInt, fmtRatio, heading, makeTempDir, printTable, removeDbFiles, since, summarize } from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PAGE = 500;
const STEP = 50;
const NOTE = { subject: 'Закрыто массово', body: 'ложные срабатывания сканера' };

function build(file: string): void {
  const { db } = openDatabase(file);
  const store = new Store(db);
  const incidents = getResource('service_asset_findings');
  store.tx(() => {
    for (let i = 0; i < ROWS; i++) store.create(incidents, { title: `Проверка ${i} — host-${i % 211}`, status: 'new', risklevel: 3 + (i % 60) / 10 }, {});
  });
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function withCopy(base: string, dir: string, fn: (store: Store) => void): number {
  const file = path.join(dir, 'run.sqlite');
  removeDbFiles(file);
  fs.copyFileSync(base, file);
  const store = new Store(openDatabase(file).db);
  try {
    const t0 = performance.now();
    fn(store);
    return since(t0);
  } finally {
    store.db.close();
    removeDbFiles(file);
  }
}

function main(): void {
  heading(`bench:bulk — a change over ${fmtInt(ROWS)} incidents, ${RUNS} runs`);
  const dir = makeTempDir('radar-bench-bulk-');
  const base = path.join(dir, 'base.sqlite');
  build(base);
  const times: Record<'pages' | 'job' | 'risk', number[]> = { pages: [], job: [], risk: [] };
  for (let run = 0; run < RUNS; run++) {
    times.pages.push(
      withCopy(base, dir, (store) => {
        const ids = store.all<{ id: string }>('SELECT id FROM service_asset_findings ORDER BY display_id').map((r) => r.id);
        for (let i = 0; i < ids.length; i += PAGE) changeStatus(store, ids.slice(i, i + PAGE), 'closed', { note: NOTE }, {});
      }),
    );
    const job = (change: Parameters<typeof IncidentBulk.begin>[2]) => (store: Store) => {
      const bulk = IncidentBulk.begin(store, { filters: [] }, change, {});
      while (!bulk.finished) bulk.step(STEP);
      bulk.commit();
      if (bulk.total !== ROWS) throw new Error(`the job matched ${bulk.total} incidents, not ${ROWS}`);
    };
    times.job.push(withCopy(base, dir, job({ status: 'closed', note: NOTE })));
    times.risk.push(withCopy(base, dir, job({ risklevel: 9.1 })));
  }
  const baseline = summarize(times.pages).p50;
  const row = (name: string, samples: number[]) => {
    const p50 = summarize(samples).p50;
    return [name, `${fmtInt(p50)} ms`, fmtInt((ROWS / p50) * 1000), fmtRatio(baseline / p50)];
  };
  printTable(
    [
      { header: 'change', align: 'left' },
      { header: 'median', align: 'right' },
      { header: 'incidents/s', align: 'right' },
      { header: 'speed vs pages', align: 'right' },
    ],
    [row(`status + reason, pages of ${PAGE} (baseline)`, times.pages), row('status + reason, one job', times.job), row('risk level, one job', times.risk)],
  );
  fs.rmSync(dir, { recursive: true, force: true });
}

main();
