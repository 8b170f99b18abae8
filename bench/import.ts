// `npm run bench:import`: 1,000,000 incidents imported from NDJSON into a fresh database and
// exported back to NDJSON, beside the raw better-sqlite3 rates measured in the same run:
//
//   raw insert   a prepared single-row INSERT of the same rows into the same table, in one
//                transaction (the table's search-index triggers fire as for any writer), and
//                the same without the search index (the table and its indexes only)
//   import       radar-console's importer (src-main/transfer) on the NDJSON files, run in a
//                child process so that its peak RSS is its own (getrusage maxrss); the child
//                runs this file bundled to plain JavaScript by esbuild, as the CLI runs from
//                its build, so that the TypeScript loader's own memory is not counted
//   tuned raw    the same NDJSON files into a fresh database by hand, as fast as plain SQL
//                goes with the same schema: readline + JSON.parse, values by column position
//                without checks, one prepared single-row INSERT, foreign keys off, 32 MiB cache,
//                journal_mode DELETE, one transaction; the search index's insert trigger
//                dropped and the index filled by INSERT ... SELECT with FTS5's bulk settings
//                (hashsize 16 MiB, automerge 0), secondary indexes made again at the end, the
//                other triggers (kept counts) in place. In a child process like the import, run
//                interleaved with it (BENCH_RUNS times each, medians): the import's rate
//                against it is the cost of the write path's checks and bookkeeping
//   raw read     SELECT * iterated with JSON.stringify of each row, same table
//   export       the exporter writing NDJSON, in a child process
//   CSV          the imported incidents exported as CSV (the console's Russian column names,
//                `;`) and that file imported into a fresh database, each in a child process:
//                rows/s against the NDJSON import of the same run, and the importer's peak RSS
//
// Targets (issue): import >= 100,000 rows/s with peak RSS < 300 MB; export >= 200,000 rows/s;
// import >= 0.83x the tuned raw import (1.00x the aim).
// A measurement, not a test: it exits 0 whatever the figures and marks misses with FAIL.
//
// Environment:
//   BENCH_ROWS=<n>      incidents (default 1,000,000)
//   BENCH_RAW_ROWS=<n>  rows of each raw insert baseline (default 200,000; the rate is per row)
//   BENCH_RUNS=<n>      interleaved runs of the import and the tuned raw import (default 3; medians)
//   BENCH_DIR=<dir>     keep the generated files and databases there (default: a temporary folder, removed)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import readline from 'node:readline';
import { openDatabase } from '../src-main/store/db';
import { ftsTable, searchableFields } from '../src-main/store/ddl';
import { prepareExport } from '../src-main/transfer/export';
import { importFiles } from '../src-main/transfer/import';
import { getResource } from '../src-shared/resources/index';
import { riskBand } from '../src-shared/resources/fields';
import { microsToTs } from '../src-shared/time';
import { ASSET_ROLES, ASSET_SITES, assetIp, assetName, bold, fmtBytes, fmtInt, fmtRatio, formatTable, gc, green, heading, red, Rng, since } from './lib';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RAW_ROWS = Math.min(ROWS, Number(process.env.BENCH_RAW_ROWS ?? 200_000));
const ASSETS = 5_000;
const FINDINGS = 500;
const IMPORT_TARGET = 100_000;
const RSS_TARGET_MB = 300;
const EXPORT_TARGET = 200_000;
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const TUNED_TARGET = 0.83;

// ------------------------------------------------------------------------------------------
// The data set: what a v2 export of incidents looks like (every field, most of them null)

const INCIDENT_FIELDS = ['id', ...Object.keys(getResource('service_asset_findings').fields), 'created_at', 'updated_at'];
const STATUSES = ['new', 'new', 'new', 'assigned_customer', 'working_customer', 'feedback_required', 'verify_close', 'risk_accepted', 'closed', 'closed', 'closed', 'invalid'] as const;
const KINDS = [
  ['Удалённое выполнение кода', 'Remote code execution', 9.3],
  ['Отказ в обслуживании', 'Denial of service', 6.5],
  ['Повышение привилегий', 'Privilege escalation', 7.8],
  ['Обход аутентификации', 'Authentication bypass', 8.6],
  ['Раскрытие информации', 'Information disclosure', 5.3],
  ['SQL-инъекция', 'SQL injection', 8.8],
  ['Устаревшая версия ПО', 'Outdated software version', 5.0],
  ['Слабые параметры TLS', 'Weak TLS configuration', 3.7],
  ['Пароль по умолчанию', 'Default credentials', 9.8],
  ['Открытый порт управления', 'Exposed management port', 5.8],
] as const;
const PRODUCTS = ['OpenSSH', 'Apache httpd', 'nginx', 'PostgreSQL', 'Microsoft Exchange', 'OpenSSL', 'Samba', 'Jenkins', 'GitLab', 'Redis'] as const;
const SCANNERS = ['MaxPatrol', 'RedCheck', 'Nessus', 'OpenVAS'] as const;
const PEOPLE = ['Иванов И. И.', 'Петрова А. С.', 'Smirnov D.', 'Кузнецов П. А.'] as const;
const PORTS = [22, 80, 443, 445, 3389, 5432, 8080] as const;
const START_MICROS = Date.UTC(2025, 10, 1) * 1000;
const YEAR_MICROS = 365 * 86_400 * 1_000_000;

function finding(i: number, rng: Rng) {
  const [ru, en, score] = KINDS[i % KINDS.length]!;
  const p = PRODUCTS[Math.floor(i / KINDS.length) % PRODUCTS.length]!;
  const at = microsToTs(START_MICROS - rng.int(1, 30) * 86_400_000_000);
  return {
    id: rng.uuid(),
    title: `${i % 3 ? `${ru} в ${p}` : `${p} ${en}`} (${i + 1})`,
    description: `${ru}: уязвимость компонента ${p}.`,
    solution: `Обновите ${p} до актуальной версии.`,
    synopsis: en,
    display_id: i + 1,
    type: 'vulnerability',
    identifier: { cve: `CVE-2024-${10000 + i}` },
    fallback_raw_risklevel: score,
    cpes: [`cpe:2.3:a:${p.toLowerCase().replace(/\s+/g, '_')}:*`],
    created_at: at,
    updated_at: at,
  };
}

function asset(i: number, rng: Rng) {
  const at = microsToTs(START_MICROS - rng.int(1, 30) * 86_400_000_000);
  return {
    id: rng.uuid(),
    type: 'Host',
    name: assetName(i),
    description: `${ASSET_ROLES[i % ASSET_ROLES.length]} ${ASSET_SITES[Math.floor(i / ASSET_ROLES.length) % ASSET_SITES.length]} ${assetIp(i)}`,
    active: true,
    value: rng.int(1, 5),
    network_exposure: rng.int(1, 5),
    created_at: at,
    updated_at: at,
  };
}

/** One incident as an array of values in INCIDENT_FIELDS order (null where unset). */
function incidentValues(i: number, rng: Rng, assets: { id: string; name: string; ip: string }[], findings: { id: string; title: string; kind: number }[]): unknown[] {
  const created = START_MICROS + Math.floor((i / ROWS) * YEAR_MICROS) + rng.int(0, 999_999);
  const f = findings[rng.int(0, findings.length - 1)]!;
  const a = assets[Math.min(assets.length - 1, Math.floor(assets.length * Math.pow(rng.next(), 1.6)))]!;
  const [, en, score] = KINDS[f.kind]!;
  const risklevel = Math.round(Math.min(10, Math.max(0, rng.normal(score, 1.3))) * 10) / 10;
  const status = STATUSES[rng.int(0, STATUSES.length - 1)]!;
  const ru = rng.chance(0.7);
  const port = PORTS[rng.int(0, PORTS.length - 1)]!;
  const scanner = SCANNERS[rng.int(0, SCANNERS.length - 1)]!;
  const v: Record<string, unknown> = {
    id: rng.uuid(),
    title: ru ? `${f.title} на ${a.name}` : `${f.title} on ${a.name} (${a.ip})`,
    description: ru ? `Обнаружено сканером ${scanner} на узле ${a.name} (${a.ip}), порт ${port}/tcp.` : `Detected by ${scanner} on ${a.name} (${a.ip}), port ${port}/tcp.`,
    synopsis: en,
    solution: rng.chance(0.15) ? `Apply vendor patch ${rng.int(1, 9)}.${rng.int(0, 20)}` : null,
    status,
    risklevel,
    risk: riskBand(risklevel),
    service_asset_id: a.id,
    finding_id: f.id,
    alert_type: 'scanner',
    acknowledged_at: status === 'new' ? null : microsToTs(created + 3_600_000_000),
    acknowledged_by: status === 'new' ? null : PEOPLE[rng.int(0, PEOPLE.length - 1)]!,
    external: rng.chance(0.1),
    customer_created: false,
    c_visible_since: microsToTs(created),
    c_reopened_count: rng.chance(0.05) ? rng.int(1, 3) : 0,
    c_remote_exploitable: score >= 7 && rng.chance(0.5),
    c_occurrence_count: 1 + rng.int(0, 8),
    immediate_action_score: Math.round(rng.next() * 1000) / 10,
    display_id: i + 1,
    created_at: microsToTs(created),
    updated_at: microsToTs(created + rng.int(0, 6 * 86_400) * 1_000_000),
  };
  return INCIDENT_FIELDS.map((k) => (k in v ? v[k] : null));
}

async function writeLines(file: string, n: number, line: (i: number) => string): Promise<void> {
  const out = fs.createWriteStream(file, { highWaterMark: 1 << 20 });
  let buf = '';
  for (let i = 0; i < n; i++) {
    buf += `${line(i)}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.write(buf);
  out.end();
  await once(out, 'finish');
}

interface Generated {
  dir: string;
  incidentsFile: string;
  bytes: number;
}

async function generate(dir: string): Promise<Generated> {
  const rng = new Rng(20251101);
  const assets = Array.from({ length: ASSETS }, (_, i) => asset(i, rng));
  const findings = Array.from({ length: FINDINGS }, (_, i) => finding(i, rng));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data, { recursive: true });
  await writeLines(path.join(data, 'service_assets.ndjson'), assets.length, (i) => JSON.stringify(assets[i]));
  await writeLines(path.join(data, 'findings.ndjson'), findings.length, (i) => JSON.stringify(findings[i]));
  const a = assets.map((x, i) => ({ id: x.id, name: x.name, ip: assetIp(i) }));
  const f = findings.map((x, i) => ({ id: x.id, title: x.title, kind: i % KINDS.length }));
  const file = path.join(data, 'service_asset_findings.ndjson');
  const keys = INCIDENT_FIELDS.map((k) => JSON.stringify(k));
  await writeLines(file, ROWS, (i) => {
    const vals = incidentValues(i, rng, a, f);
    let s = '{';
    for (let j = 0; j < keys.length; j++) s += `${j ? ',' : ''}${keys[j]}:${JSON.stringify(vals[j])}`;
    return `${s}}`;
  });
  const bytes = fs.readdirSync(data).reduce((sum, n) => sum + fs.statSync(path.join(data, n)).size, 0);
  return { dir: data, incidentsFile: file, bytes };
}

// ------------------------------------------------------------------------------------------
// Raw baselines (in this process)

/** The first RAW_ROWS incidents of the generated file, as rows of INCIDENT_FIELDS values. */
async function rawRows(file: string): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    const o = JSON.parse(line) as Record<string, unknown>;
    rows.push(INCIDENT_FIELDS.map((k) => (typeof o[k] === 'boolean' ? (o[k] ? 1 : 0) : o[k])));
    if (rows.length >= RAW_ROWS) break;
  }
  lines.close();
  return rows;
}

function rawInsert(dbFile: string, rows: unknown[][], withSearchIndex: boolean): { rows: number; ms: number } {
  for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  const { db } = openDatabase(dbFile);
  try {
    // The parents (assets, finding types) are not in this database: a raw insert checks nothing.
    db.exec('PRAGMA foreign_keys = OFF');
    if (!withSearchIndex) db.exec('DROP TRIGGER service_asset_findings_fts_ai');
    const stmt = db.prepare(`INSERT INTO service_asset_findings (${INCIDENT_FIELDS.map((c) => `"${c}"`).join(', ')}) VALUES (${INCIDENT_FIELDS.map(() => '?').join(', ')})`);
    gc();
    const t0 = performance.now();
    db.transaction(() => {
      for (const r of rows) stmt.run(r);
    })();
    return { rows: rows.length, ms: since(t0) };
  } finally {
    db.close();
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  }
}

function rawRead(dbFile: string): { rows: number; ms: number } {
  const { db } = openDatabase(dbFile, { readonly: true, create: false });
  try {
    const stmt = db.prepare('SELECT * FROM service_asset_findings');
    let n = 0;
    let bytes = 0;
    const t0 = performance.now();
    for (const row of stmt.iterate()) {
      bytes += JSON.stringify(row).length;
      n++;
    }
    if (bytes < 0) throw new Error('unreachable');
    return { rows: n, ms: since(t0) };
  } finally {
    db.close();
  }
}

// ------------------------------------------------------------------------------------------
// Children: the importer and the exporter, each in a process of its own

interface ChildResult {
  ms: number;
  /** CPU time of the child (user + system, all threads), ms: far less bent by other work on the machine than ms. */
  cpuMs?: number;
  rows: number;
  maxRssKiB: number;
  phases?: Record<string, number>;
}

/** This process's CPU time so far (user + system), ms. */
const cpuMsNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function childImport(dataDir: string, dbFile: string): Promise<void> {
  const t0 = performance.now();
  const phases: Record<string, number> = {};
  let phase = 'reading';
  let phaseStart = t0;
  const summary = await importFiles(dbFile, [dataDir], {
    onProgress: (p) => {
      if (p.phase !== phase) {
        phases[phase] = (phases[phase] ?? 0) + (performance.now() - phaseStart);
        phase = p.phase;
        phaseStart = performance.now();
      }
    },
  });
  phases[phase] = (phases[phase] ?? 0) + (performance.now() - phaseStart);
  const rows = summary.resources.service_asset_findings?.inserted ?? 0;
  const out: ChildResult = { ms: since(t0), cpuMs: cpuMsNow(), rows, maxRssKiB: process.resourceUsage().maxRSS, phases };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

/** The tuned raw import (see the header): the generated files by hand, as fast as plain SQL goes. */
async function childTunedRaw(dataDir: string, dbFile: string): Promise<void> {
  const t0 = performance.now();
  const { db } = openDatabase(dbFile);
  db.pragma('cache_size = -32768');
  db.pragma('journal_mode = DELETE');
  db.pragma('foreign_keys = OFF');
  let incidents = 0;
  db.exec('BEGIN IMMEDIATE');
  for (const resource of ['service_assets', 'findings', 'service_asset_findings']) {
    const r = getResource(resource);
    const cols = ['id', ...Object.keys(r.fields), 'created_at', 'updated_at'];
    const kinds = cols.map((c) => r.fields[c]?.kind);
    const trigger = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`).get(`${r.table}_fts_ai`) as { name: string; sql: string } | undefined;
    if (trigger) db.exec(`DROP TRIGGER "${trigger.name}"`);
    const indexes = (db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).all(r.table) as { name: string; sql: string }[]).filter(
      (ix) => !/^CREATE\s+UNIQUE\b/i.test(ix.sql),
    );
    for (const ix of indexes) db.exec(`DROP INDEX "${ix.name}"`);
    const stmt = db.prepare(`INSERT INTO "${r.table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    const row: unknown[] = new Array(cols.length);
    const lines = readline.createInterface({ input: fs.createReadStream(path.join(dataDir, `${resource}.ndjson`)), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line) continue;
      const o = JSON.parse(line) as Record<string, unknown>;
      for (let i = 0; i < cols.length; i++) {
        const v = o[cols[i]!];
        row[i] = v === undefined || v === null ? null : kinds[i] === 'bool' ? (v ? 1 : 0) : kinds[i] === 'json' ? JSON.stringify(v) : v;
      }
      stmt.run(row);
      if (resource === 'service_asset_findings') incidents++;
    }
    for (const ix of indexes) db.exec(ix.sql);
    if (trigger) {
      const fts = `"${ftsTable(r)}"`;
      const fcols = searchableFields(r).map((c) => `"${c}"`).join(', ');
      db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('automerge', 0)`);
      db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('hashsize', ${16 * 1024 * 1024})`);
      db.exec(`INSERT INTO ${fts} (rowid, ${fcols}) SELECT _rid, ${fcols} FROM "${r.table}"`);
      db.exec(trigger.sql);
    }
  }
  db.exec('COMMIT');
  db.close();
  const out: ChildResult = { ms: since(t0), cpuMs: cpuMsNow(), rows: incidents, maxRssKiB: process.resourceUsage().maxRSS };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

async function childExport(dbFile: string, outFile: string): Promise<void> {
  const t0 = performance.now();
  const csv = outFile.endsWith('.csv');
  const ex = prepareExport(dbFile, csv ? { resource: 'service_asset_findings', format: 'csv', headers: 'ru', delimiter: ';' } : { resource: 'service_asset_findings', format: 'ndjson' });
  // As `radar-console export --out FILE` writes: synchronous writes of the streamed chunks.
  const fd = fs.openSync(outFile, 'w');
  let rows = 0;
  for await (const chunk of ex.chunks(undefined, (n) => (rows = n))) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  const res: ChildResult = { ms: since(t0), rows, maxRssKiB: process.resourceUsage().maxRSS };
  process.stdout.write(`RESULT ${JSON.stringify(res)}\n`);
}

/** Whether two databases have the same schema (every table, index, trigger and full-text table, by its SQL), said in words. */
function sameSchema(a: string, b: string): { same: boolean; text: string } {
  const read = (file: string) => {
    const { db } = openDatabase(file, { readonly: true, create: false });
    try {
      const rows = db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`).all() as { type: string; name: string; sql: string | null }[];
      return new Map(rows.map((r) => [`${r.type} ${r.name}`, r.sql ?? '']));
    } finally {
      db.close();
    }
  };
  const x = read(a);
  const y = read(b);
  const differ = [...new Set([...x.keys(), ...y.keys()])].filter((k) => x.get(k) !== y.get(k));
  const n = (type: string) => [...x.keys()].filter((k) => k.startsWith(`${type} `)).length;
  const fts = [...x.entries()].filter(([k, v]) => k.startsWith('table ') && /USING fts5/i.test(v)).length;
  if (differ.length) return { same: false, text: `the tuned raw database differs from the import's in ${differ.join(', ')}` };
  return { same: true, text: `the tuned raw database has the import's ${n('table')} tables (${fts} full-text), ${n('index')} indexes and ${n('trigger')} triggers, each with the same SQL` };
}

/** This file as one plain JavaScript file (dependencies left to node_modules), or null without esbuild. */
async function bundle(): Promise<string | null> {
  try {
    const esbuild = await import('esbuild');
    const out = path.join(__dirname, '..', 'node_modules', '.cache', 'radar-bench', 'import.cjs');
    // A new file, not the old one rewritten: a node_modules copied with hard links shares it with other checkouts.
    fs.rmSync(out, { force: true });
    await esbuild.build({ entryPoints: [__filename], bundle: true, platform: 'node', format: 'cjs', target: 'node20', packages: 'external', outfile: out, logLevel: 'silent' });
    return out;
  } catch {
    return null;
  }
}

let childEntry: string[] = ['--import', 'tsx', __filename];

function runChild(args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...childEntry, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) return reject(new Error(`child ${args[0]} exited with ${code}: ${out}`));
      resolve(JSON.parse(line.slice(7)) as ChildResult);
    });
  });
}

// ------------------------------------------------------------------------------------------

const rate = (rows: number, ms: number): number => rows / (ms / 1000);
const verdict = (ok: boolean): string => (ok ? green('PASS') : red('FAIL'));
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  heading(`import / export: ${fmtInt(ROWS)} incidents (Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)})`);
  const keep = !!process.env.BENCH_DIR;
  const dir = keep ? path.resolve(process.env.BENCH_DIR!) : fs.mkdtempSync(path.join(os.tmpdir(), 'radar-bench-import-'));
  fs.mkdirSync(dir, { recursive: true });
  try {
    const bundled = await bundle();
    if (bundled) childEntry = [bundled];
    console.log(`  children run ${bundled ? `the bundled ${path.relative(process.cwd(), bundled)}` : 'under tsx (esbuild not found: their RSS includes the TypeScript loader)'}`);
    const t = performance.now();
    const gen = await generate(dir);
    console.log(`  generated ${fmtInt(ROWS)} incidents, ${fmtInt(ASSETS)} assets, ${fmtInt(FINDINGS)} finding types as NDJSON: ${fmtBytes(gen.bytes)} in ${(since(t) / 1000).toFixed(1)} s`);

    const rows = await rawRows(gen.incidentsFile);
    gc();
    const rawFts = rawInsert(path.join(dir, 'raw-fts.sqlite'), rows, true);
    gc();
    const rawPlain = rawInsert(path.join(dir, 'raw-plain.sqlite'), rows, false);
    rows.length = 0;
    console.log(`  raw insert, ${fmtInt(RAW_ROWS)} rows: with the search-index trigger ${fmtInt(rate(rawFts.rows, rawFts.ms))} rows/s; without ${fmtInt(rate(rawPlain.rows, rawPlain.ms))} rows/s`);

    // The import and the tuned raw import, interleaved: medians of RUNS runs each.
    const dbFile = path.join(dir, 'imported.sqlite');
    const tunedFile = path.join(dir, 'tuned-raw.sqlite');
    const fresh = (f: string) => {
      for (const x of [f, `${f}-wal`, `${f}-shm`, `${f}-journal`]) fs.rmSync(x, { force: true });
    };
    const imports: ChildResult[] = [];
    const tuned: ChildResult[] = [];
    for (let i = 0; i < RUNS; i++) {
      fresh(dbFile);
      imports.push(await runChild(['--child-import', gen.dir, dbFile]));
      fresh(tunedFile);
      tuned.push(await runChild(['--child-tuned-raw', gen.dir, tunedFile]));
    }
    // A fair comparison: the tuned raw database has the import's schema (the same tables, indexes,
    // triggers and full-text tables, each with the same SQL), checked on the last run of each.
    const schema = sameSchema(dbFile, tunedFile);
    fresh(tunedFile);
    const impRates = imports.map((x) => rate(x.rows, x.ms));
    const tunedRates = tuned.map((x) => rate(x.rows, x.ms));
    const impRate = median(impRates);
    const tunedRate = median(tunedRates);
    const vsTuned = impRate / tunedRate;
    // The figures below (phases, RSS) are those of the run with the median rate.
    const imp = imports[impRates.indexOf([...impRates].sort((a, b) => a - b)[Math.floor((RUNS - 1) / 2)]!)]!;
    console.log(
      `  import vs tuned raw, ${RUNS} interleaved runs each: import ${impRates.map((x) => fmtInt(x)).join(', ')} rows/s; tuned raw ${tunedRates.map((x) => fmtInt(x)).join(', ')} rows/s`,
    );
    // Each run of the import against the tuned raw run right after it, by time and by CPU time
    // (the CPU time is far less bent by other work on the machine).
    const pairs = imports.map((x, i) => tuned[i]!.ms / x.ms);
    const cpuPairs = imports.every((x, i) => x.cpuMs && tuned[i]!.cpuMs) ? imports.map((x, i) => tuned[i]!.cpuMs! / x.cpuMs!) : [];
    console.log(
      `  pairs (import rate / the tuned raw rate of the run after it): ${pairs.map((x) => x.toFixed(3)).join(', ')}, median ${median(pairs).toFixed(3)}` +
        (cpuPairs.length ? `; by CPU time ${cpuPairs.map((x) => x.toFixed(3)).join(', ')}, median ${median(cpuPairs).toFixed(3)}` : ''),
    );
    console.log(`  ${schema.same ? 'same schema' : red('schemas differ')}: ${schema.text}`);
    const rssMb = imp.maxRssKiB / 1024;
    const phases = Object.entries(imp.phases ?? {})
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
      .join(', ');
    console.log(`  import: ${fmtInt(imp.rows)} incidents in ${(imp.ms / 1000).toFixed(1)} s (${phases}), peak RSS ${rssMb.toFixed(0)} MiB`);

    const { db } = openDatabase(dbFile, { readonly: true, create: false });
    const count = (db.prepare('SELECT COUNT(*) AS n FROM service_asset_findings').get() as { n: number }).n;
    const hits = (db.prepare(`SELECT COUNT(*) AS n FROM service_asset_findings_fts WHERE service_asset_findings_fts MATCH ?`).get('"MaxPatrol"') as { n: number }).n;
    db.close();
    console.log(`  check: ${fmtInt(count)} incidents stored; the search index finds "MaxPatrol" in ${fmtInt(hits)}`);

    gc();
    const read = rawRead(dbFile);
    const exp = await runChild(['--child-export', dbFile, path.join(dir, 'exported.ndjson')]);
    const expRate = rate(exp.rows, exp.ms);
    const expBytes = fs.statSync(path.join(dir, 'exported.ndjson')).size;
    console.log(`  export: ${fmtInt(exp.rows)} incidents to NDJSON (${fmtBytes(expBytes)}) in ${(exp.ms / 1000).toFixed(1)} s, peak RSS ${(exp.maxRssKiB / 1024).toFixed(0)} MiB`);

    // The same incidents through CSV: exported with Russian column names and `;`, imported beside
    // the same assets and finding types into a fresh database.
    const csvDir = path.join(dir, 'csv');
    fs.mkdirSync(csvDir, { recursive: true });
    for (const f of ['service_assets.ndjson', 'findings.ndjson']) fs.copyFileSync(path.join(gen.dir, f), path.join(csvDir, f));
    const csvExp = await runChild(['--child-export', dbFile, path.join(csvDir, 'service_asset_findings.csv')]);
    const csvBytes = fs.statSync(path.join(csvDir, 'service_asset_findings.csv')).size;
    const csvDb = path.join(dir, 'imported-csv.sqlite');
    for (const f of [csvDb, `${csvDb}-wal`, `${csvDb}-shm`]) fs.rmSync(f, { force: true });
    const csvImp = await runChild(['--child-import', csvDir, csvDb]);
    const csvImpRate = rate(csvImp.rows, csvImp.ms);
    console.log(
      `  CSV: exported ${fmtInt(csvExp.rows)} incidents (${fmtBytes(csvBytes)}) in ${(csvExp.ms / 1000).toFixed(1)} s; imported ${fmtInt(csvImp.rows)} in ${(csvImp.ms / 1000).toFixed(1)} s, peak RSS ${(csvImp.maxRssKiB / 1024).toFixed(0)} MiB`,
    );

    heading('figures');
    console.log(
      formatTable(
        [{ header: 'what' }, { header: 'rows' , align: 'right' }, { header: 'rows/s', align: 'right' }, { header: 'vs raw insert (trigger)', align: 'right' }, { header: 'vs raw insert (no index)', align: 'right' }],
        [
          ['raw insert, search-index trigger', fmtInt(rawFts.rows), fmtInt(rate(rawFts.rows, rawFts.ms)), '1.00x', fmtRatio(rate(rawFts.rows, rawFts.ms) / rate(rawPlain.rows, rawPlain.ms))],
          ['raw insert, no search index', fmtInt(rawPlain.rows), fmtInt(rate(rawPlain.rows, rawPlain.ms)), fmtRatio(rate(rawPlain.rows, rawPlain.ms) / rate(rawFts.rows, rawFts.ms)), '1.00x'],
          ['tuned raw import (NDJSON, same files)', fmtInt(tuned[0]!.rows), fmtInt(tunedRate), fmtRatio(tunedRate / rate(rawFts.rows, rawFts.ms)), fmtRatio(tunedRate / rate(rawPlain.rows, rawPlain.ms))],
          ['import (NDJSON, indexed)', fmtInt(imp.rows), fmtInt(impRate), fmtRatio(impRate / rate(rawFts.rows, rawFts.ms)), fmtRatio(impRate / rate(rawPlain.rows, rawPlain.ms))],
          ['import (CSV, Russian headers, ;)', fmtInt(csvImp.rows), fmtInt(csvImpRate), fmtRatio(csvImpRate / rate(rawFts.rows, rawFts.ms)), fmtRatio(csvImpRate / rate(rawPlain.rows, rawPlain.ms))],
        ],
      ),
    );
    console.log(
      formatTable(
        [{ header: 'what' }, { header: 'rows', align: 'right' }, { header: 'rows/s', align: 'right' }, { header: 'vs raw read', align: 'right' }],
        [
          ['raw read (iterate + JSON.stringify)', fmtInt(read.rows), fmtInt(rate(read.rows, read.ms)), '1.00x'],
          ['export (NDJSON)', fmtInt(exp.rows), fmtInt(expRate), fmtRatio(expRate / rate(read.rows, read.ms))],
          ['export (CSV)', fmtInt(csvExp.rows), fmtInt(rate(csvExp.rows, csvExp.ms)), fmtRatio(rate(csvExp.rows, csvExp.ms) / rate(read.rows, read.ms))],
        ],
      ),
    );
    heading('targets');
    console.log(`  ${verdict(impRate >= IMPORT_TARGET)} import ${fmtInt(impRate)} rows/s (target >= ${fmtInt(IMPORT_TARGET)})`);
    console.log(
      `  ${verdict(vsTuned >= TUNED_TARGET && schema.same)} import vs tuned raw: ${vsTuned.toFixed(3)} (target >= ${TUNED_TARGET}x: ${vsTuned >= TUNED_TARGET ? 'met' : 'not met'}; 1.00x: ${vsTuned >= 1 ? 'met' : 'not met'}; median of the pairs ${median(pairs).toFixed(3)}${cpuPairs.length ? `, by CPU time ${median(cpuPairs).toFixed(3)}` : ''}; ${schema.same ? 'same schema' : 'schemas differ'})`,
    );
    console.log(`  ${verdict(rssMb < RSS_TARGET_MB)} import peak RSS ${rssMb.toFixed(0)} MiB (target < ${RSS_TARGET_MB} MB)`);
    console.log(`  ${verdict(expRate >= EXPORT_TARGET)} export ${fmtInt(expRate)} rows/s (target >= ${fmtInt(EXPORT_TARGET)})`);
    console.log(`  ${verdict(csvImp.maxRssKiB / 1024 < RSS_TARGET_MB)} CSV import peak RSS ${(csvImp.maxRssKiB / 1024).toFixed(0)} MiB (target < ${RSS_TARGET_MB} MB); ${fmtRatio(csvImpRate / impRate)} the NDJSON import's rate`);
    console.log(bold(`  (load average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`));
  } finally {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

const [mode, a, b] = process.argv.slice(2);
const run =
  mode === '--child-import' ? childImport(a!, b!) : mode === '--child-tuned-raw' ? childTunedRaw(a!, b!) : mode === '--child-export' ? childExport(a!, b!) : main();
run.catch((e) => {
  console.error(e);
  process.exit(1);
});
