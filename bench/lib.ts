// Shared helpers for the benchmarks in bench/: a seeded random source, percentiles, a table
// printer, batched inserts, query plans, a keep-alive HTTP client, and the incident data set
// (assets, finding types, people and responsible groups, incidents) built straight into a
// database file.
//
// Benchmarks print figures and ratios against a baseline measured in the same process; they
// quote medians and ratios because the machines are noisy. Nothing here asserts on time.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../src-main/store/db';
import { riskBand, type IncidentStatus } from '../src-shared/resources/fields';
import { LOCAL_USER_ID } from '../src-shared/ids';
import { microsToTs } from '../src-shared/time';

// ------------------------------------------------------------------------------------------
// Random data

/** A small seeded generator (mulberry32): the same seed gives the same data set. */
export class Rng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Normal distribution (Box-Muller). */
  normal(mean: number, sd: number): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exponential distribution with the given mean. */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** An index in [0, n) skewed towards 0: `skew` 1 is uniform, larger values favour the head. */
  skewed(n: number, skew: number): number {
    return Math.min(n - 1, Math.floor(n * Math.pow(this.next(), skew)));
  }

  /** A UUID-shaped (version 4) identifier drawn from this generator. */
  uuid(): string {
    const h = (x: number) => (x >>> 0).toString(16).padStart(8, '0');
    const a = h(this.next() * 4294967296);
    const b = h(this.next() * 4294967296);
    const c = h(this.next() * 4294967296);
    const d = h(this.next() * 4294967296);
    const variant = ((parseInt(c[0]!, 16) & 0x3) | 0x8).toString(16);
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
  }
}

/** A picker over weighted choices (weights need not sum to 1). */
export function weighted<T>(entries: readonly (readonly [T, number])[]): (rng: Rng) => T {
  if (!entries.length) throw new Error('weighted: no choices');
  const total = entries.reduce((s, [, w]) => s + w, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const [, w] of entries) cumulative.push((acc += w / total));
  return (rng) => {
    const x = rng.next();
    for (let i = 0; i < cumulative.length; i++) if (x < cumulative[i]!) return entries[i]![0];
    return entries[entries.length - 1]![0];
  };
}

// ------------------------------------------------------------------------------------------
// Statistics and formatting

/** The p-th percentile (0..100) of ascending samples, linearly interpolated. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const pos = (sorted.length - 1) * (p / 100);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    min: s[0] ?? NaN,
    max: s[s.length - 1] ?? NaN,
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

/** Milliseconds since `t0` (a performance.now() reading). */
export const since = (t0: number): number => performance.now() - t0;

/** Milliseconds with three significant digits or so (0.123, 1.23, 12.3, 123). */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  const a = Math.abs(ms);
  return ms.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');

export const fmtRatio = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '-');

export function fmtBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/** A plain-text table; numbers are best pre-formatted and right-aligned. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[], indent = '  '): string {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (text: string, i: number) => {
    const w = widths[i] ?? 0;
    return columns[i]?.align === 'right' ? text.padStart(w) : text.padEnd(w);
  };
  const line = (cells: readonly string[]) => indent + columns.map((_, i) => cell(cells[i] ?? '', i)).join('  ').trimEnd();
  return [line(columns.map((c) => c.header)), indent + widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function printTable(columns: readonly Column[], rows: readonly (readonly string[])[], indent = '  '): void {
  console.log(formatTable(columns, rows, indent));
}

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
export const red = (s: string): string => (useColor ? `\x1b[1;31m${s}\x1b[0m` : s);
export const green = (s: string): string => (useColor ? `\x1b[32m${s}\x1b[0m` : s);
export const bold = (s: string): string => (useColor ? `\x1b[1m${s}\x1b[0m` : s);

export function heading(title: string): void {
  console.log(`\n${bold(`== ${title} `)}${'='.repeat(Math.max(3, 90 - title.length))}`);
}

// ------------------------------------------------------------------------------------------
// Process and files

/** A collection when the process runs with --expose-gc (between phases, never while timing). */
export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export const rssMiB = (): string => `${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`;

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A child process started with `args`, once it prints a line starting with `prefix` (JSON after it). */
export function spawnReady<T>(args: string[], prefix: string): Promise<{ child: ChildProcess; info: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: path.resolve(__dirname, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not get ready: ${err}`)), 180_000);
    child.stderr!.on('data', (c) => (err += c));
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith(prefix));
      if (line) {
        clearTimeout(timer);
        resolve({ child, info: JSON.parse(line.slice(prefix.length)) as T });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

/** Size of a SQLite database file with its -wal and -shm files. */
export function dbFileSize(file: string): { main: number; wal: number; total: number } {
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  const main = size(file);
  const wal = size(`${file}-wal`);
  return { main, wal, total: main + wal + size(`${file}-shm`) };
}

export function removeDbFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

// ------------------------------------------------------------------------------------------
// SQLite

export interface InsertStats {
  rows: number;
  ms: number;
  rowsPerSec: number;
}

export interface InsertOptions {
  table: string;
  columns: readonly string[];
  /** Number of rows; row(i) is called for i = first .. first + total - 1, in order. */
  total: number;
  row: (i: number) => unknown[];
  first?: number;
  /** Rows per transaction (default 50,000). */
  batch?: number;
  /** Rows per INSERT statement (a multi-row VALUES list; default 1). */
  rowsPerStatement?: number;
  onProgress?: (done: number, ms: number) => void;
}

/**
 * Inserts rows made one at a time by `row(i)` through prepared statements, `batch` rows per
 * transaction and `rowsPerStatement` rows per INSERT; nothing is held beyond one statement's rows.
 */
export function insertBatched(db: Db, o: InsertOptions): InsertStats {
  const per = Math.max(1, o.rowsPerStatement ?? 1);
  const batch = Math.max(per, o.batch ?? 50_000);
  const first = o.first ?? 0;
  const tuple = `(${o.columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO "${o.table}" (${o.columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
  const stmtFor = (n: number) => db.prepare(head + Array.from({ length: n }, () => tuple).join(', '));
  const full = stmtFor(per);
  const t0 = performance.now();
  const runBatch = db.transaction((from: number, to: number) => {
    const params: unknown[] = [];
    let inStmt = 0;
    for (let i = from; i < to; i++) {
      const values = o.row(i);
      for (const v of values) params.push(v);
      if (++inStmt === per) {
        full.run(params);
        params.length = 0;
        inStmt = 0;
      }
    }
    if (inStmt) stmtFor(inStmt).run(params);
  });
  const end = first + o.total;
  for (let from = first; from < end; from += batch) {
    const to = Math.min(end, from + batch);
    runBatch(from, to);
    o.onProgress?.(to - first, since(t0));
  }
  const ms = since(t0);
  return { rows: o.total, ms, rowsPerSec: o.total / (ms / 1000) };
}

/** EXPLAIN QUERY PLAN as an indented tree. */
export function explainPlan(db: Db, sql: string, params: readonly unknown[] = [], indent = '    '): string {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { id: number; parent: number; detail: string }[];
  const depth = new Map<number, number>([[0, -1]]);
  return rows
    .map((r) => {
      const d = (depth.get(r.parent) ?? -1) + 1;
      depth.set(r.id, d);
      return `${indent}${'  '.repeat(d)}${r.detail}`;
    })
    .join('\n');
}

// ------------------------------------------------------------------------------------------
// HTTP

export interface HttpAnswer {
  status: number;
  /** The raw body: decoding it (toString, JSON.parse) is the caller's work, outside any timing. */
  body: Buffer;
}

/**
 * A JSON client on one keep-alive socket (requests one at a time), as a console or a script
 * talks to the server. The answer body is read in full but neither decoded nor parsed, so a
 * timing around `post` covers the request up to its last byte and none of the client's own work.
 */
export class KeepAliveClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly url: URL;

  constructor(
    base: string,
    private readonly headers: Record<string, string> = {},
  ) {
    this.url = new URL(base);
  }

  request(method: string, pathname: string, body?: string): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(body);
      const req = http.request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          method,
          path: pathname,
          headers: {
            ...this.headers,
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  post(pathname: string, body: unknown): Promise<HttpAnswer> {
    return this.request('POST', pathname, typeof body === 'string' ? body : JSON.stringify(body));
  }

  close(): void {
    this.agent.destroy();
  }
}

// ------------------------------------------------------------------------------------------
// The incident data set: service_assets, findings and service_asset_findings

export interface IncidentDataset {
  incidents: number;
  assets: number;
  findings: number;
  seed: number;
}

/** Bumped whenever the generator changes, so that a cached database is rebuilt. */
export const DATASET_VERSION = 2;

/** The data set's last instant: created_at values spread over the year before it. */
export const DATASET_END_MICROS = Date.UTC(2026, 10, 1) * 1000;
const YEAR_MICROS = 365 * 86_400 * 1_000_000;
const DAY_MICROS = 86_400 * 1_000_000;

export const ASSET_ROLES = ['web', 'db', 'app', 'mail', 'dc', 'fs', 'vpn', 'proxy', 'k8s', 'backup'] as const;
export const ASSET_SITES = ['msk', 'spb', 'nsk', 'ekb', 'kzn'] as const;
const SITE_RU: Record<(typeof ASSET_SITES)[number], string> = { msk: 'Москва', spb: 'Санкт-Петербург', nsk: 'Новосибирск', ekb: 'Екатеринбург', kzn: 'Казань' };
const ROLE_RU: Record<(typeof ASSET_ROLES)[number], string> = {
  web: 'Веб-сервер',
  db: 'Сервер баз данных',
  app: 'Сервер приложений',
  mail: 'Почтовый сервер',
  dc: 'Контроллер домена',
  fs: 'Файловый сервер',
  vpn: 'VPN-шлюз',
  proxy: 'Прокси-сервер',
  k8s: 'Узел Kubernetes',
  backup: 'Сервер резервного копирования',
};

/** Host name of asset `i`: role-site-NNN (e.g. db-msk-042), 100 per role and site. */
export function assetName(i: number): string {
  const role = ASSET_ROLES[i % ASSET_ROLES.length]!;
  const site = ASSET_SITES[Math.floor(i / ASSET_ROLES.length) % ASSET_SITES.length]!;
  const n = Math.floor(i / (ASSET_ROLES.length * ASSET_SITES.length)) + 1;
  return `${role}-${site}-${String(n).padStart(3, '0')}`;
}

export function assetIp(i: number): string {
  const site = Math.floor(i / ASSET_ROLES.length) % ASSET_SITES.length;
  const role = i % ASSET_ROLES.length;
  const n = Math.floor(i / (ASSET_ROLES.length * ASSET_SITES.length));
  return `10.${10 + site}.${role * 10 + (n >> 6)}.${(n & 63) * 4 + 2}`;
}

const PRODUCTS = [
  'OpenSSH', 'Apache httpd', 'nginx', 'PostgreSQL', 'MySQL', 'Microsoft Exchange', 'Windows Server', 'OpenSSL', 'Samba',
  'BIND', 'Kubernetes API', 'Docker Engine', 'Jenkins', 'GitLab', 'Confluence', 'Jira', 'Zimbra', 'Postfix', 'Exim',
  'Redis', 'Elasticsearch', 'MongoDB', 'Apache Tomcat', 'Microsoft IIS', 'VMware vCenter',
] as const;

/** Vulnerability kinds: Russian and English titles and a typical CVSS base score. */
const KINDS: readonly { ru: string; en: string; score: number }[] = [
  { ru: 'Удалённое выполнение кода', en: 'Remote code execution', score: 9.3 },
  { ru: 'Отказ в обслуживании', en: 'Denial of service', score: 6.5 },
  { ru: 'Повышение привилегий', en: 'Privilege escalation', score: 7.8 },
  { ru: 'Обход аутентификации', en: 'Authentication bypass', score: 8.6 },
  { ru: 'Раскрытие информации', en: 'Information disclosure', score: 5.3 },
  { ru: 'SQL-инъекция', en: 'SQL injection', score: 8.8 },
  { ru: 'Межсайтовый скриптинг', en: 'Cross-site scripting', score: 6.1 },
  { ru: 'Устаревшая версия ПО', en: 'Outdated software version', score: 5.0 },
  { ru: 'Слабые параметры TLS', en: 'Weak TLS configuration', score: 3.7 },
  { ru: 'Пароль по умолчанию', en: 'Default credentials', score: 9.8 },
  { ru: 'Открытый порт управления', en: 'Exposed management port', score: 5.8 },
  { ru: 'Истёк срок действия сертификата', en: 'Expired certificate', score: 2.6 },
  { ru: 'Обход каталога', en: 'Path traversal', score: 7.5 },
  { ru: 'Небезопасная десериализация', en: 'Insecure deserialization', score: 8.1 },
  { ru: 'Подделка запросов на стороне сервера', en: 'Server-side request forgery', score: 7.2 },
  { ru: 'Переполнение буфера', en: 'Buffer overflow', score: 8.4 },
  { ru: 'Отсутствует обновление безопасности', en: 'Missing security update', score: 6.8 },
  { ru: 'Анонимный доступ', en: 'Anonymous access', score: 5.9 },
  { ru: 'Небезопасная конфигурация', en: 'Insecure configuration', score: 4.3 },
  { ru: 'Утечка учётных данных', en: 'Credential leak', score: 7.4 },
];

const SCANNERS = ['MaxPatrol', 'RedCheck', 'Nessus', 'OpenVAS', 'Qualys', 'Nmap NSE'] as const;
const PORTS = [22, 25, 53, 80, 110, 143, 389, 443, 445, 587, 636, 993, 1433, 3306, 3389, 5432, 5985, 6379, 8080, 8443, 9200, 27017] as const;
const ALERT_TYPES = ['scanner', 'scanner', 'scanner', 'siem', 'manual', 'pentest'] as const;
const PEOPLE = ['Иванов И. И.', 'Петрова А. С.', 'Smirnov D.', 'Кузнецов П. А.', 'Orlova M.', 'Соколов В. В.', 'Lebedev K.', 'Новикова Е. Н.'] as const;

/** The people directory of the data set (console_people): the local analyst (the console's "me")
 * and the people above, with fixed ids. */
export const DATASET_PEOPLE: readonly { id: string; name: string }[] = [
  { id: LOCAL_USER_ID, name: 'Аналитик SOC' },
  ...PEOPLE.map((name, i) => ({ id: `00000000-0000-4000-8000-${String(101 + i).padStart(12, '0')}`, name })),
];

/** Responsible groups of the data set; the local analyst is a member of the first two. */
export const DATASET_GROUPS: readonly { id: string; name: string; members: readonly string[] }[] = [
  { name: 'SOC L1', members: [0, 1, 2, 3] },
  { name: 'SOC L2', members: [0, 4, 5] },
  { name: 'Эксплуатация ЦОД', members: [6, 7] },
  { name: 'Сетевая безопасность', members: [3, 8] },
  { name: 'AppSec', members: [2, 5] },
  { name: 'Инфраструктура Windows', members: [1, 7, 8] },
].map((g, i) => ({ id: `00000000-0000-4000-9000-${String(1 + i).padStart(12, '0')}`, name: g.name, members: g.members.map((m) => DATASET_PEOPLE[m]!.id) }));

/** Sentences appended to descriptions, with how often each appears (a share of incidents). */
const EXTRA_SENTENCES: readonly { text: string; share: number }[] = [
  { text: 'Требуется перезагрузка сервера после установки обновления.', share: 0.1 },
  { text: 'Reboot required after patching.', share: 0.06 },
  { text: 'Эксплойт опубликован в открытом доступе.', share: 0.03 },
  { text: 'Уязвимость активно эксплуатируется злоумышленниками.', share: 0.015 },
  { text: 'Public exploit available (Metasploit module).', share: 0.02 },
  { text: 'Узел доступен из интернета через межсетевой экран периметра.', share: 0.05 },
  { text: 'Compensating control: access restricted by firewall ACL.', share: 0.04 },
  { text: 'Обнаружено повторно после закрытия.', share: 0.02 },
  { text: 'Ложное срабатывание не исключено, требуется ручная проверка.', share: 0.03 },
  { text: 'Затронуты персональные данные клиентов.', share: 0.008 },
];

const CLIENT_NOTES = [
  'Согласовано окно обслуживания в выходные.',
  'Ждём обновление от вендора.',
  'Scheduled for the next maintenance window.',
  'Сервер выводится из эксплуатации в следующем квартале.',
  'Risk accepted by the system owner until Q3.',
] as const;

/** Shares of incident statuses for recent (under 45 days) and older incidents. */
const STATUS_RECENT = weighted<IncidentStatus>([
  ['new', 40],
  ['assigned_customer', 18],
  ['working_customer', 14],
  ['feedback_required', 6],
  ['verify_close', 6],
  ['risk_accepted', 3],
  ['closed', 10],
  ['invalid', 3],
]);
const STATUS_OLDER = weighted<IncidentStatus>([
  ['new', 12],
  ['assigned_customer', 8],
  ['working_customer', 8],
  ['feedback_required', 3],
  ['verify_close', 4],
  ['risk_accepted', 9],
  ['closed', 47],
  ['invalid', 9],
]);

interface FindingInfo {
  id: string;
  title: string;
  kind: number;
  product: number;
  ru: boolean;
}

/** Column list of the rows inserted below; the DDL has no DEFAULT clauses, so defaults are written here. */
const INCIDENT_COLUMNS = [
  'id', 'display_id', 'title', 'description', 'synopsis', 'solution', 'status', 'risklevel', 'risk', 'service_asset_id',
  'finding_id', 'alert_type', 'acknowledged_at', 'acknowledged_by', 'client_note', 'external', 'customer_created',
  'c_visible_since', 'c_visible_since_in_days', 'c_reopened_count', 'c_remote_exploitable', 'c_occurrence_count',
  'immediate_action_score', 'created_at', 'updated_at', 'user_id', 'group_id',
] as const;

export interface DatasetBuildStats {
  assets: InsertStats;
  findings: InsertStats;
  /** All incidents (both phases below). */
  incidents: InsertStats;
  /** The first incidents, one row per INSERT statement (the shape of the API's own writes). */
  incidentsSingle: InsertStats;
  /** The rest, `rowsPerStatement` rows per INSERT statement. */
  incidentsMulti: InsertStats;
  rowsPerStatement: number;
  analyzeMs: number;
  checkpointMs: number;
}

/** Rows per INSERT statement in the bulk phase (fewer statement runs; the FTS work per row is the same). */
const ROWS_PER_STATEMENT = 100;

/**
 * Writes the data set into an empty, migrated database (openDatabase). Rows are generated one at
 * a time; the search index triggers fire for every row as they do for the API's writes. The
 * first incidents (2%, at most 20,000) go one per statement to measure that path, the rest in
 * multi-row statements, all in transactions of 50,000 rows. Then ANALYZE and a checkpoint.
 */
export function buildIncidentDataset(db: Db, ds: IncidentDataset, log: (line: string) => void = console.log): DatasetBuildStats {
  const rng = new Rng(ds.seed);
  const start = DATASET_END_MICROS - YEAR_MICROS;
  const before = start - 30 * DAY_MICROS;

  // Assets
  const assetIds: string[] = [];
  const assets = insertBatched(db, {
    table: 'service_assets',
    columns: ['id', 'type', 'name', 'description', 'coordinates', 'active', 'value', 'network_exposure', 'location', 'responsible_person', 'created_at', 'updated_at'],
    total: ds.assets,
    rowsPerStatement: ROWS_PER_STATEMENT,
    row: (i) => {
      const id = rng.uuid();
      assetIds.push(id);
      const role = ASSET_ROLES[i % ASSET_ROLES.length]!;
      const site = ASSET_SITES[Math.floor(i / ASSET_ROLES.length) % ASSET_SITES.length]!;
      const at = microsToTs(before + rng.int(0, 29) * DAY_MICROS + rng.int(0, DAY_MICROS - 1));
      return [
        id,
        'Host',
        assetName(i),
        `${ROLE_RU[role]}, ${SITE_RU[site]}; ${assetIp(i)}`,
        '--- []',
        rng.chance(0.97) ? 1 : 0,
        rng.int(1, 5),
        rng.int(1, 5),
        `ЦОД ${SITE_RU[site]}-${rng.int(1, 2)}`,
        rng.pick(PEOPLE),
        at,
        at,
      ];
    },
  });

  // Finding types: product x kind, two in three titled in Russian
  const findingInfo: FindingInfo[] = [];
  const findings = insertBatched(db, {
    table: 'findings',
    columns: ['id', 'display_id', 'title', 'description', 'solution', 'synopsis', 'type', 'identifier', 'fallback_raw_risklevel', 'cpes', 'local', 'new_version', 'customer_created', 'software_compliance', 'is_system', 'created_at', 'updated_at'],
    total: ds.findings,
    rowsPerStatement: ROWS_PER_STATEMENT,
    row: (i) => {
      const id = rng.uuid();
      const kind = i % KINDS.length;
      const product = Math.floor(i / KINDS.length) % PRODUCTS.length;
      const k = KINDS[kind]!;
      const p = PRODUCTS[product]!;
      const ru = i % 3 !== 0;
      const series = Math.floor(i / (KINDS.length * PRODUCTS.length));
      const title = (ru ? `${k.ru} в ${p}` : `${p} ${k.en}`) + (series ? ` (${series + 1})` : '');
      findingInfo.push({ id, title, kind, product, ru });
      const at = microsToTs(before + rng.int(0, DAY_MICROS - 1));
      return [
        id,
        i + 1,
        title,
        ru ? `${k.ru}: уязвимость компонента ${p} позволяет нарушителю ${k.score >= 7 ? 'получить контроль над узлом' : 'нарушить работу сервиса'}.` : `${k.en} in ${p}.`,
        ru ? `Обновите ${p} до актуальной версии.` : `Update ${p} to the latest release.`,
        k.en,
        'vulnerability',
        JSON.stringify({ cve: `CVE-${2018 + (i % 8)}-${10000 + i * 37}` }),
        k.score,
        JSON.stringify([`cpe:2.3:a:${p.toLowerCase().replace(/\s+/g, '_')}:*`]),
        0,
        0,
        0,
        0,
        0,
        at,
        at,
      ];
    },
  });

  // People and responsible groups: who an incident is assigned to and which group owns it
  const dirAt = microsToTs(before);
  insertBatched(db, {
    table: 'console_people',
    columns: ['id', 'name', 'short_name', 'login', 'email', 'role', 'created_at', 'updated_at'],
    total: DATASET_PEOPLE.length,
    row: (i) => {
      const p = DATASET_PEOPLE[i]!;
      return [p.id, p.name, p.name, null, null, null, dirAt, dirAt];
    },
  });
  insertBatched(db, {
    table: 'responsible_groups',
    columns: ['id', 'name', 'accept_risk', 'visible_scan_schedules', 'stop_scans', 'user_ids', 'created_at', 'updated_at'],
    total: DATASET_GROUPS.length,
    row: (i) => {
      const g = DATASET_GROUPS[i]!;
      return [g.id, g.name, 0, 0, 0, JSON.stringify(g.members), dirAt, dirAt];
    },
  });
  // Drawn from a generator of their own, so that every other field is what version 1 made.
  const owners = new Rng(ds.seed ^ 0x5eed);
  const ownerOf = (status: IncidentStatus): [string | null, string | null] => {
    const group = owners.chance(0.9) ? DATASET_GROUPS[owners.skewed(DATASET_GROUPS.length, 1.5)]!.id : null;
    if (!owners.chance(status === 'new' ? 0.1 : 0.75)) return [null, group];
    const person = owners.chance(0.12) ? LOCAL_USER_ID : DATASET_PEOPLE[1 + owners.skewed(DATASET_PEOPLE.length - 1, 1.8)]!.id;
    return [person, group];
  };

  // Incidents, in roughly chronological order (the way they arrive)
  const step = YEAR_MICROS / ds.incidents;
  const incident = (i: number): unknown[] => {
    const created = Math.floor(start + (i + rng.next()) * step);
    const ageDays = (DATASET_END_MICROS - created) / DAY_MICROS;
    const status = (ageDays < 45 ? STATUS_RECENT : STATUS_OLDER)(rng);
    const fi = findingInfo[rng.skewed(findingInfo.length, 2.2)]!;
    const asset = rng.skewed(assetIds.length, 1.6);
    const host = assetName(asset);
    const ip = assetIp(asset);
    const k = KINDS[fi.kind]!;
    const raw = rng.chance(0.03) ? 0 : Math.min(10, Math.max(0.1, rng.normal(k.score, 1.3)));
    const risklevel = Math.round(raw * 10) / 10;
    const ru = rng.chance(fi.ru ? 0.85 : 0.3);
    const scanner = rng.pick(SCANNERS);
    const port = rng.pick(PORTS);
    let description = ru
      ? `Обнаружено сканером ${scanner} на узле ${host} (${ip}), порт ${port}/tcp.`
      : `Detected by ${scanner} on ${host} (${ip}), port ${port}/tcp.`;
    for (const s of EXTRA_SENTENCES) if (rng.chance(s.share)) description += ` ${s.text}`;
    const title = ru ? `${fi.title} на ${host}` : `${fi.title} on ${host} (${ip})`;
    const updated = Math.min(DATASET_END_MICROS, created + Math.floor(rng.exp(6 * DAY_MICROS)));
    const acknowledged = status === 'new' ? null : Math.min(updated, created + Math.floor(rng.exp(DAY_MICROS / 2)));
    return [
      rng.uuid(),
      i + 1,
      title,
      description,
      k.en,
      rng.chance(0.15)
        ? ru
          ? `Установить обновление ${PRODUCTS[fi.product]} ${rng.int(1, 9)}.${rng.int(0, 20)}.${rng.int(0, 9)}`
          : `Apply vendor patch ${rng.int(1, 9)}.${rng.int(0, 20)}`
        : null,
      status,
      risklevel,
      riskBand(risklevel),
      assetIds[asset]!,
      fi.id,
      rng.pick(ALERT_TYPES),
      acknowledged === null ? null : microsToTs(acknowledged),
      acknowledged === null ? null : rng.pick(PEOPLE),
      rng.chance(0.04) ? rng.pick(CLIENT_NOTES) : null,
      rng.chance(0.1) ? 1 : 0,
      0,
      microsToTs(created),
      Math.floor(ageDays),
      rng.chance(0.05) ? rng.int(1, 3) : 0,
      k.score >= 7 && rng.chance(0.5) ? 1 : 0,
      1 + Math.floor(rng.exp(4)),
      Math.round(rng.next() * 1000) / 10,
      microsToTs(created),
      microsToTs(updated),
      ...ownerOf(status),
    ];
  };
  const single = Math.min(20_000, Math.ceil(ds.incidents * 0.02));
  const progressEvery = Math.max(1, Math.round(ds.incidents / 10));
  let nextProgress = progressEvery;
  const t0 = performance.now();
  const progress = (done: number) => {
    if (done >= nextProgress || done === ds.incidents) {
      while (nextProgress <= done) nextProgress += progressEvery;
      const s = since(t0) / 1000;
      log(`    incidents: ${fmtInt(done).padStart(9)} rows, ${s.toFixed(1).padStart(5)} s, ${fmtInt(done / s).padStart(6)} rows/s overall, rss ${rssMiB()}`);
    }
  };
  const base = { table: 'service_asset_findings', columns: INCIDENT_COLUMNS, row: incident };
  const incidentsSingle = insertBatched(db, { ...base, total: single, rowsPerStatement: 1, onProgress: (d) => progress(d) });
  const incidentsMulti = insertBatched(db, {
    ...base,
    first: single,
    total: ds.incidents - single,
    rowsPerStatement: ROWS_PER_STATEMENT,
    onProgress: (d) => progress(single + d),
  });
  const ms = since(t0);
  const incidents = { rows: ds.incidents, ms, rowsPerSec: ds.incidents / (ms / 1000) };

  let t = performance.now();
  db.exec('ANALYZE');
  const analyzeMs = since(t);
  t = performance.now();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const checkpointMs = since(t);
  return { assets, findings, incidents, incidentsSingle, incidentsMulti, rowsPerStatement: ROWS_PER_STATEMENT, analyzeMs, checkpointMs };
}

export interface PreparedDb {
  file: string;
  /** Whether a cached database (BENCH_DB) was reused rather than built now. */
  reused: boolean;
  stats?: DatasetBuildStats;
  /** Removes a temporary database; a BENCH_DB file is kept for the next run. */
  cleanup(): void;
}

const markerOf = (file: string): string => `${file}.bench.json`;

type Marker = IncidentDataset & { version: number; complete: boolean; at?: string };

function readMarker(file: string): Marker | null {
  try {
    return JSON.parse(fs.readFileSync(markerOf(file), 'utf8')) as Marker;
  } catch {
    return null;
  }
}

function writeMarker(file: string, ds: IncidentDataset, complete: boolean): void {
  const m: Marker = { version: DATASET_VERSION, ...ds, complete, at: new Date().toISOString() };
  fs.writeFileSync(markerOf(file), JSON.stringify(m, null, 2));
}

/**
 * The incident data set in a database file: reused when env BENCH_DB names a file that an
 * earlier run of a benchmark built completely with the same parameters, else built (at
 * BENCH_DB, or in a temporary folder). A marker file `<db>.bench.json` records the parameters
 * and whether the build completed; a file without a marker is never touched.
 */
export function prepareIncidentDb(ds: IncidentDataset, log: (line: string) => void = console.log): PreparedDb {
  const envFile = process.env.BENCH_DB;
  let file: string;
  let cleanup = () => {};
  if (envFile) {
    file = path.resolve(envFile);
    const marker = readMarker(file);
    if (fs.existsSync(file)) {
      if (!marker) {
        throw new Error(`BENCH_DB=${file} exists but no benchmark built it (no ${markerOf(file)}); remove it or choose another path`);
      }
      const same =
        marker.complete &&
        marker.version === DATASET_VERSION &&
        marker.incidents === ds.incidents &&
        marker.assets === ds.assets &&
        marker.findings === ds.findings &&
        marker.seed === ds.seed;
      if (same) {
        const { db } = openDatabase(file, { create: false });
        const n = (db.prepare('SELECT COUNT(*) AS n FROM service_asset_findings').get() as { n: number }).n;
        db.close();
        if (n === ds.incidents) {
          log(`  database: reusing cached ${file} (BENCH_DB; ${fmtInt(n)} incidents, generator v${DATASET_VERSION}, built ${marker.at ?? '?'})`);
          return { file, reused: true, cleanup };
        }
        log(`  database: cached ${file} holds ${fmtInt(n)} incidents, not ${fmtInt(ds.incidents)}; rebuilding`);
      } else if (!marker.complete) {
        log(`  database: cached ${file} is an interrupted build; rebuilding`);
      } else {
        log(`  database: cached ${file} was built with ${fmtInt(marker.incidents)} incidents (generator v${marker.version}); rebuilding`);
      }
      removeDbFiles(file);
    }
    log(`  database: building ${file} (BENCH_DB; kept for the next run)`);
  } else {
    const dir = makeTempDir('radar-bench-');
    file = path.join(dir, 'bench.sqlite');
    cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
    log(`  database: building ${file} (temporary; set BENCH_DB=<file> to keep and reuse it)`);
  }
  writeMarker(file, ds, false);
  const { db } = openDatabase(file);
  try {
    db.pragma('cache_size = -262144');
    const stats = buildIncidentDataset(db, ds, log);
    db.close();
    writeMarker(file, ds, true);
    return { file, reused: false, stats, cleanup };
  } catch (e) {
    if (db.open) db.close();
    cleanup();
    throw e;
  }
}
