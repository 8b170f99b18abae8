// A generated software compliance data set, written straight into a database's tables in one
// transaction: software records (real-looking names and versions in Latin and Cyrillic, some with
// a stored tsvector as records copied from the platform carry), assets with their installed
// software, asset groups, rule sets over those groups and rules whose queries use every tsquery
// operator (`&`, `|`, `!`, `<->`, `<N>`, `:*`, weights, hyphenated words). Deterministic for a
// seed. Used by the compliance benchmark (10,000 assets x 200 software) and by the test that
// compares the check's verdicts with PostgreSQL's own `@@` over the same data.
import type { Db } from '../src-main/store/db';
import { microsToTs } from '../src-shared/time';
import { Rng } from './lib';

export interface ComplianceDataOptions {
  seed: number;
  software: number;
  assets: number;
  /** Installed software records per asset (drawn without repeats). */
  perAsset: number;
  groups: number;
  ruleSets: number;
  rules: number;
  /** Share of software records with a stored tsvector (default 0.1). */
  storedShare?: number;
}

export interface ComplianceData {
  ruleSetIds: string[];
  ruleIds: string[];
  assetIds: string[];
  softwareIds: string[];
  links: number;
}

export const VENDORS = ['Microsoft', 'Adobe', 'Google', 'Mozilla', 'Oracle', 'Kaspersky', 'КриптоПро', '1С', 'Яндекс', 'GNU', 'Apache', 'VMware', 'Cisco', 'JetBrains', 'Intel', 'NVIDIA'];
export const PRODUCTS = [
  'Office Professional Plus',
  'Visual C++ Redistributable',
  'Photoshop',
  'Acrobat Reader DC',
  'Chrome',
  'Firefox ESR',
  'Java Runtime Environment',
  'Endpoint Security для Windows',
  'CSP',
  'Предприятие 8 Тонкий клиент',
  'Браузер',
  'gimp',
  'HTTP Server',
  'Tools',
  'AnyConnect Secure Mobility Client',
  'IntelliJ IDEA',
  'Management Engine Components',
  'Graphics Driver',
  'TeamViewer',
  'AnyDesk',
  'openssh-server',
  'openssh-client',
  'libssl3',
  'python3.11-minimal',
  'linux-image-amd64',
  'qbittorrent',
  'Radmin Viewer',
  'radmin-viewer',
  'nginx-full',
  'log4j-core',
];
const EDITIONS = ['', '', '', ' (x64)', ' (x86)', ' 2019', ' 2016', ' - ru-ru', ' (64-bit)', ' Update 14'];

/** Words of the names above, lower-cased as the parser makes them (the operands of generated rules). */
export const RULE_WORDS = [
  'microsoft',
  'adobe',
  'google',
  'oracle',
  'kaspersky',
  'криптопро',
  '1с',
  'яндекс',
  'office',
  'photoshop',
  'chrome',
  'firefox',
  'java',
  'runtime',
  'endpoint',
  'security',
  'csp',
  'предприятие',
  'клиент',
  'браузер',
  'gimp',
  'server',
  'teamviewer',
  'anydesk',
  'openssh',
  'openssh-server',
  'openssh-client',
  'qbittorrent',
  'radmin',
  'radmin-viewer',
  'viewer',
  'nginx',
  'log4j',
  'core',
  'x64',
  'x86',
  '2019',
  '2016',
  'libssl3',
  'python3.11-minimal',
  'tools',
  'driver',
];

export function softwareRecord(rng: Rng): { name: string; version: string } {
  const product = rng.pick(PRODUCTS);
  const name = /^[a-z]/.test(product) ? product : `${rng.pick(VENDORS)} ${product}${rng.pick(EDITIONS)}`;
  const version = rng.chance(0.1) ? '' : `${rng.int(1, 30)}.${rng.int(0, 20)}.${rng.int(0, 9999)}${rng.chance(0.3) ? `-${rng.int(1, 9)}+deb12u${rng.int(1, 5)}` : ''}`;
  return { name, version };
}

/** A stored tsvector as the platform keeps one (its own words, weights, positions). */
function storedVector(rng: Rng): string {
  const n = rng.int(1, 5);
  const lexemes = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const word = rng.pick(RULE_WORDS);
    const weight = rng.pick(['', '', 'A', 'B', 'C']);
    lexemes.set(word, `${i + 1}${weight}`);
  }
  return [...lexemes].map(([w, p]) => `'${w}':${p}`).join(' ');
}

/** A rule query over the data's words: operators, phrases, prefixes, weights, negation. */
export function ruleQuery(rng: Rng, depth = 0): string {
  const word = () => {
    const w = rng.pick(RULE_WORDS);
    const quoted = /^[a-z0-9]+$/.test(w) && !rng.chance(0.2) ? w : `'${w}'`;
    if (rng.chance(0.12)) return `${quoted.replace(/'$/, '').replace(/^'/, '').slice(0, rng.int(2, 4))}:*`;
    if (rng.chance(0.05)) return `${quoted}:${rng.pick(['A', 'AB', 'D'])}`;
    return quoted;
  };
  if (depth >= 2 || rng.chance(0.3)) return rng.chance(0.12) ? `!${word()}` : word();
  const op = rng.pick(['&', '&', '|', '|', '<->', '<2>', '& !']);
  const a = ruleQuery(rng, depth + 1);
  const b = ruleQuery(rng, depth + 1);
  const inner = `${a} ${op} ${b}`;
  return depth > 0 ? `(${inner})` : inner;
}

/** Writes the data set into the database's tables (one transaction). */
export function writeComplianceData(db: Db, o: ComplianceDataOptions): ComplianceData {
  const rng = new Rng(o.seed);
  const base = Date.UTC(2026, 9, 1) * 1000;
  const stamp = (i: number) => microsToTs(base + i);
  const out: ComplianceData = { ruleSetIds: [], ruleIds: [], assetIds: [], softwareIds: [], links: 0 };
  const tag = `g${o.seed}`;
  db.transaction(() => {
    const sw = db.prepare(`INSERT INTO software (id, name, version, raw_output_line, tsvector, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    for (let i = 0; i < o.software; i++) {
      const id = rng.uuid();
      const { name, version } = softwareRecord(rng);
      const stored = rng.chance(o.storedShare ?? 0.1) ? storedVector(rng) : null;
      sw.run(id, name, version || null, `${tag} ${i} ${name} ${version}`, stored, stamp(i), stamp(i));
      out.softwareIds.push(id);
    }
    const groupIds: string[] = [];
    const grp = db.prepare(`INSERT INTO service_asset_groups (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)`);
    for (let g = 0; g < o.groups; g++) {
      const id = rng.uuid();
      grp.run(id, `Группа ${tag}-${g + 1}`, stamp(g), stamp(g));
      groupIds.push(id);
    }
    const asset = db.prepare(`INSERT INTO service_assets (id, type, name, created_at, updated_at) VALUES (?, 'host', ?, ?, ?)`);
    const member = db.prepare(`INSERT OR IGNORE INTO service_asset_group_members (service_asset_id, service_asset_group_id) VALUES (?, ?)`);
    const link = db.prepare(`INSERT OR IGNORE INTO service_asset_software (software_id, service_asset_id) VALUES (?, ?)`);
    const n = out.softwareIds.length;
    const pickedAt = new Int32Array(n).fill(-1);
    for (let a = 0; a < o.assets; a++) {
      const id = rng.uuid();
      asset.run(id, `${tag}-host-${String(a + 1).padStart(6, '0')}`, stamp(a), stamp(a));
      out.assetIds.push(id);
      member.run(id, rng.pick(groupIds));
      if (rng.chance(0.2)) member.run(id, rng.pick(groupIds));
      const k = Math.min(o.perAsset, n);
      // A skewed draw (common software on most assets, rare on few), without repeats.
      for (let j = 0; j < k; ) {
        const s = rng.chance(0.5) ? rng.skewed(n, 3) : rng.int(0, n - 1);
        if (pickedAt[s] === a) {
          if (k > n / 2) {
            // Dense: walk to the next free record.
            let t = s;
            while (pickedAt[t] === a) t = (t + 1) % n;
            pickedAt[t] = a;
            link.run(out.softwareIds[t], id);
            j++;
          }
          continue;
        }
        pickedAt[s] = a;
        link.run(out.softwareIds[s], id);
        j++;
      }
      out.links += k;
    }
    const set = db.prepare(`INSERT INTO rule_sets (id, name, create_service_asset_findings, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`);
    const setGroup = db.prepare(`INSERT OR IGNORE INTO rule_set_asset_groups (service_asset_group_id, rule_set_id) VALUES (?, ?)`);
    for (let s = 0; s < o.ruleSets; s++) {
      const id = rng.uuid();
      set.run(id, `Набор ${tag}-${s + 1}`, s % 3 === 2 ? 0 : 1, stamp(s), stamp(s));
      const g = Math.min(groupIds.length, rng.int(1, 3));
      for (let i = 0; i < g; i++) setGroup.run(rng.pick(groupIds), id);
      out.ruleSetIds.push(id);
    }
    const rule = db.prepare(`INSERT INTO rules (id, trace_id, name, query, blacklist_entry, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const ruleSet = db.prepare(`INSERT OR IGNORE INTO rule_set_rules (rule_id, rule_set_id) VALUES (?, ?)`);
    for (let r = 0; r < o.rules; r++) {
      const id = rng.uuid();
      rule.run(id, rng.uuid(), `Правило ${tag}-${String(r + 1).padStart(3, '0')}`, ruleQuery(rng), rng.chance(0.5) ? 1 : 0, stamp(r), stamp(r));
      ruleSet.run(id, out.ruleSetIds[r % out.ruleSetIds.length]);
      if (rng.chance(0.2)) ruleSet.run(id, rng.pick(out.ruleSetIds));
      out.ruleIds.push(id);
    }
  })();
  return out;
}
