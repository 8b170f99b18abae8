// What answering from compiled schemas would change: JSON.stringify (what the server uses) beside
// fast-json-stringify compiled from the same answers' schemas, on the instance list and a v2
// search answer of 50 incidents read from the benchmark's database. Shared by bench:search and
// bench:load.
import fjs from 'fast-json-stringify';
import crypto from 'node:crypto';
import { z } from 'zod';
import { openDatabase } from '../src-main/store/db';
import { Store } from '../src-main/store/store';
import { getResource } from '../src-shared/resources/index';
import { instanceSchema } from '../src-shared/schemas/instances';
import { recordSchemaOf } from '../src-shared/schemas/resource';
import { listSchema, type SearchRequest } from '../src-shared/schemas/search';
import { fmtRatio, formatTable, heading, since, summarize } from './lib';
import { Runner } from '../src-main/store/query/runner';

const median = (xs: number[]): number => summarize(xs).p50;

export function serializerEffect(db: string, search: SearchRequest): void {
  heading("serialisation: JSON.stringify (the server's) beside fast-json-stringify compiled from the answers' schemas");
  const incidents = getResource('service_asset_findings');
  const { db: conn } = openDatabase(db, { readonly: true, create: false });
  const store = new Store(conn);
  const page = new Runner(store).search(incidents, search);
  conn.close();
  const list = [
    { id: crypto.randomUUID(), name: 'Main', url: 'http://127.0.0.1:9000', sort_order: 0 },
    { id: crypto.randomUUID(), name: 'Архив 2025', url: 'http://127.0.0.1:9009', sort_order: 1 },
    { id: crypto.randomUUID(), name: 'Филиал СПб', url: 'https://siem.spb.example:9000', sort_order: 2 },
  ];
  const compiled = (schema: z.ZodType) => fjs(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Parameters<typeof fjs>[0]);
  const cases: [string, unknown, (x: never) => string][] = [
    ['instance list (3 instances)', list, compiled(z.array(instanceSchema)) as (x: never) => string],
    ['v2 search answer (50 incidents)', page, compiled(listSchema(recordSchemaOf(incidents))) as (x: never) => string],
  ];
  const rows: string[][] = [];
  for (const [name, value, fast] of cases) {
    const same = fast(value as never) === JSON.stringify(value);
    const time = (f: () => string) => {
      const n = name.startsWith('instance') ? 200_000 : 2_000;
      for (let i = 0; i < n / 10; i++) f();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) f();
      return (since(t0) * 1000) / n;
    };
    const a = median([1, 2, 3].map(() => time(() => JSON.stringify(value))));
    const b = median([1, 2, 3].map(() => time(() => fast(value as never))));
    rows.push([name, `${a.toFixed(2)} µs`, `${b.toFixed(2)} µs`, fmtRatio(a / b), same ? 'same text' : 'different text']);
  }
  console.log(formatTable([{ header: 'answer' }, { header: 'JSON.stringify', align: 'right' }, { header: 'compiled', align: 'right' }, { header: 'speed-up', align: 'right' }, { header: 'output' }], rows));
}
