// Demo dataset: a small Russian-speaking SOC (a service provider's analysts and their customer)
// watching one company's two data centres, DMZ and four offices. Everything is derived from
// seeded pseudo-random streams and a fixed anchor instant, so two runs produce byte-identical
// databases (ids and timestamps included).
//
// Design in brief:
// - Assets come from role templates (database servers, 1C, domain controllers, DMZ web, firewalls,
//   workstations...). A role fixes OS, network zone, owner team, installed software and hardware.
// - Finding types carry their source (correlation rule, vulnerability scan, software compliance,
//   watchdog, manual) and the assets they plausibly fire on (SSH brute force on Linux servers,
//   regreSSHion on hosts with an affected OpenSSH, TeamViewer where it is installed...).
// - Incidents are skewed to recent days; older ones are mostly closed. Each incident has a
//   status history written explicitly (so its ids are deterministic), and the incident's own
//   fields (status, acknowledged_at, reopened_at, c_reopened_count, ...) agree with that history.
// - Occurrences are sightings of incidents: the first at the incident's creation, the rest spread
//   until it was closed (or until now); each points at the status change in force at the time.
import { getResource, type OCCURRENCE_EVENT_TYPES, RESOURCES, type ResourceDef } from '../../src-shared/resources/index';
import { FINAL_STATUSES, OPEN_STATUSES, type IncidentStatus } from '../../src-shared/resources/fields';
import type { WriteBody } from '../../src-shared/schemas/resource';
import { LOCAL_USER_ID, shortNameOf } from '../../src-shared/schemas/people';
import { microsToTs } from '../../src-shared/time';
import { toTsVector, tsvectorToString } from '../../src-shared/textsearch';
import { q } from './sql';
import type { Store } from './store';
import { K } from '../../src-shared/resources/kinds';

/** Rows created per resource name. */
export type SeedSummary = Record<string, number>;

export interface SeedOptions {
  /** Multiplies the big collections (assets, incidents and so occurrences); default 1. */
  scale?: number;
}

type EventType = (typeof OCCURRENCE_EVENT_TYPES)[number];

// ---------------------------------------------------------------- determinism

const SEED = 'radar-demo-2026';
/**
 * Every timestamp lies before this instant, 2026-11-01T00:00:00Z (except the revisit dates of
 * accepted risks, which are planned reviews and so lie after it).
 */
const ANCHOR_US = Date.UTC(2026, 10, 1) * 1000;
const SEC_US = 1_000_000;
const MIN_US = 60 * SEC_US;
const HOUR_US = 60 * MIN_US;
const DAY_US = 24 * HOUR_US;
const HISTORY_DAYS = 120;

const ts = (us: number): string => microsToTs(Math.floor(us));
/** An instant moved back before the anchor when an offset would carry it past. */
const past = (us: number): number => Math.min(us, ANCHOR_US - SEC_US);
const dateOf = (us: number): string => ts(us).slice(0, 10);

function cyrb128(str: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < str.length; i++) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32 seeded from a label: one independent stream per concern, integer arithmetic only. */
class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(label: string) {
    [this.a, this.b, this.c, this.d] = cyrb128(`${SEED}/${label}`);
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    if (!list.length) throw new Error('seed: pick from an empty list');
    return list[Math.floor(this.next() * list.length)]!;
  }

  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [v, w] of items) {
      x -= w;
      if (x < 0) return v;
    }
    return items[items.length - 1]![0];
  }

  shuffle<T>(list: readonly T[]): T[] {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  sample<T>(list: readonly T[], k: number): T[] {
    return this.shuffle(list).slice(0, Math.max(0, Math.min(k, list.length)));
  }

  /** A number in [min, max] with one decimal. */
  dec1(min: number, max: number): number {
    return Math.round((min + this.next() * (max - min)) * 10) / 10;
  }

  hex(bytes: number): string {
    let s = '';
    for (let i = 0; i < bytes; i++) s += this.int(0, 255).toString(16).padStart(2, '0');
    return s;
  }

  /** A uuid-v4-shaped string. */
  uuid(): string {
    const h = this.hex(16).split('');
    h[12] = '4';
    h[16] = '89ab'[parseInt(h[16]!, 16) & 3]!;
    const s = h.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }

  alnum(n: number): string {
    const abc = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
    let s = '';
    for (let i = 0; i < n; i++) s += abc[this.int(0, abc.length - 1)]!;
    return s;
  }
}

// ---------------------------------------------------------------- people

interface User {
  id: string;
  name: string;
  login: string;
  team: 'soc' | 'customer';
}

const USER_NAMES: readonly (readonly [string, string, 'soc' | 'customer'])[] = [
  ['Смирнов Алексей (SOC L1)', 'a.smirnov', 'soc'],
  ['Кравченко Ирина (SOC L1)', 'i.kravchenko', 'soc'],
  ['Тарасов Денис (SOC L1)', 'd.tarasov', 'soc'],
  ['Никитина Мария (SOC L2)', 'm.nikitina', 'soc'],
  ['Гусев Павел (SOC L2)', 'p.gusev', 'soc'],
  ['Захарова Анна (руководитель SOC)', 'a.zakharova', 'soc'],
  ['Петров Андрей Викторович', 'av.petrov', 'customer'],
  ['Соколова Елена Игоревна', 'ei.sokolova', 'customer'],
  ['Кузнецов Дмитрий Сергеевич', 'ds.kuznetsov', 'customer'],
  ['Волкова Наталья Павловна', 'np.volkova', 'customer'],
  ['Морозов Илья Андреевич', 'ia.morozov', 'customer'],
  ['Лебедев Сергей Николаевич', 'sn.lebedev', 'customer'],
];

const EMPLOYEES = [
  'Иванова Е.А.', 'Смирнов П.К.', 'Васильева М.Д.', 'Попов А.Н.', 'Козлова И.В.', 'Новиков Д.С.',
  'Павлова Ю.Р.', 'Семёнов К.О.', 'Голубева А.А.', 'Виноградов Е.П.', 'Богданова С.М.', 'Воробьёв Н.И.',
  'Михайлова Л.Г.', 'Зайцев В.Ю.', 'Титова О.С.', 'Ершов Г.Л.', 'Комарова Д.Е.', 'Белов Ф.А.',
] as const;

// ---------------------------------------------------------------- organisation

type GroupKey = 'it' | 'srv' | 'dba' | 'net' | 'helpdesk' | 'branches' | 'sec' | 'soc' | 'ir';

const RESPONSIBLE_GROUPS: readonly {
  key: GroupKey;
  name: string;
  parent?: GroupKey;
  email: string;
  phone: string;
  people: readonly [string, string];
  acceptRisk?: boolean;
}[] = [
  { key: 'it', name: 'Департамент информационных технологий', email: 'it@corp.local', phone: '+7 (495) 640-12-00', people: ['Петров Андрей Викторович', 'Петров Андрей Викторович'], acceptRisk: true },
  { key: 'srv', name: 'Отдел серверной инфраструктуры', parent: 'it', email: 'servers@corp.local', phone: '+7 (495) 640-12-10', people: ['Кузнецов Дмитрий Сергеевич', 'Орлов Роман Евгеньевич'] },
  { key: 'dba', name: 'Группа администрирования СУБД', parent: 'srv', email: 'dba@corp.local', phone: '+7 (495) 640-12-14', people: ['Кузнецов Дмитрий Сергеевич', 'Фёдоров Максим Олегович'] },
  { key: 'net', name: 'Отдел сетевой инфраструктуры', parent: 'it', email: 'network@corp.local', phone: '+7 (495) 640-12-20', people: ['Морозов Илья Андреевич', 'Лебедев Сергей Николаевич'] },
  { key: 'helpdesk', name: 'Служба технической поддержки', parent: 'it', email: 'helpdesk@corp.local', phone: '+7 (495) 640-12-30', people: ['Волкова Наталья Павловна', 'Алексеева Татьяна Юрьевна'] },
  { key: 'branches', name: 'ИТ-поддержка филиалов', parent: 'helpdesk', email: 'branch-it@corp.local', phone: '+7 (812) 455-30-01', people: ['Волкова Наталья Павловна', 'Новикова Ольга Александровна'] },
  { key: 'sec', name: 'Департамент информационной безопасности', email: 'security@corp.local', phone: '+7 (495) 640-13-00', people: ['Соколова Елена Игоревна', 'Соколова Елена Игоревна'], acceptRisk: true },
  { key: 'soc', name: 'SOC — дежурная смена', parent: 'sec', email: 'soc@corp.local', phone: '+7 (495) 640-13-13', people: ['Захарова Анна Сергеевна', 'Никитина Мария Олеговна'] },
  { key: 'ir', name: 'Группа реагирования на инциденты', parent: 'sec', email: 'cert@corp.local', phone: '+7 (495) 640-13-20', people: ['Гусев Павел Ильич', 'Никитина Мария Олеговна'] },
];

type ZoneKey = 'db' | 'app' | 'infra' | 'dmz' | 'dc2' | 'msk' | 'spb' | 'ekb' | 'nsk';

const ZONES: Record<ZoneKey, { location: string; net: readonly [number, number, number] }> = {
  db: { location: 'Москва, ЦОД-1', net: [10, 10, 10] },
  app: { location: 'Москва, ЦОД-1', net: [10, 10, 20] },
  infra: { location: 'Москва, ЦОД-1', net: [10, 10, 30] },
  dmz: { location: 'Москва, ЦОД-1 (DMZ)', net: [10, 0, 100] },
  dc2: { location: 'Москва, ЦОД-2 (резервная площадка)', net: [10, 20, 10] },
  msk: { location: 'Москва, главный офис (ул. Лесная, 5)', net: [192, 168, 1] },
  spb: { location: 'Санкт-Петербург, офис (Невский пр., 28)', net: [192, 168, 16] },
  ekb: { location: 'Екатеринбург, филиал', net: [192, 168, 32] },
  nsk: { location: 'Новосибирск, филиал', net: [192, 168, 48] },
};

// ---------------------------------------------------------------- software

type SwGroupKey = 'sys' | 'sys-net' | 'sys-os' | 'app' | 'app-db' | 'app-web' | 'app-biz' | 'app-office' | 'sec' | 'sec-av' | 'sec-crypto' | 'unw' | 'unw-rat';

const SOFTWARE_GROUPS: readonly { key: SwGroupKey; name: string; description: string; parent?: SwGroupKey }[] = [
  { key: 'sys', name: 'Системное ПО', description: 'Компоненты операционных систем и системные службы' },
  { key: 'sys-net', name: 'Сетевые службы', description: 'SSH, агенты удалённого управления и мониторинга', parent: 'sys' },
  { key: 'sys-os', name: 'Компоненты ОС', description: 'Базовые пакеты дистрибутивов и среды выполнения', parent: 'sys' },
  { key: 'app', name: 'Прикладное ПО', description: 'Бизнес-приложения, СУБД, веб-серверы' },
  { key: 'app-db', name: 'СУБД', description: 'PostgreSQL, Postgres Pro, Microsoft SQL Server', parent: 'app' },
  { key: 'app-web', name: 'Веб-серверы и прокси', description: 'nginx, Apache HTTP Server, Squid', parent: 'app' },
  { key: 'app-biz', name: 'Бизнес-приложения', description: '1С:Предприятие, Exchange, GitLab, Veeam', parent: 'app' },
  { key: 'app-office', name: 'Офисное ПО и браузеры', description: 'Офисные пакеты, браузеры, архиваторы', parent: 'app' },
  { key: 'sec', name: 'Средства защиты информации', description: 'Сертифицированные СЗИ' },
  { key: 'sec-av', name: 'Антивирусная защита', description: 'Kaspersky Endpoint Security и Security Center', parent: 'sec' },
  { key: 'sec-crypto', name: 'СКЗИ', description: 'Средства криптографической защиты: КриптоПро CSP, ViPNet', parent: 'sec' },
  { key: 'unw', name: 'Нежелательное ПО', description: 'ПО, запрещённое политикой ИБ' },
  { key: 'unw-rat', name: 'Средства удалённого доступа', description: 'TeamViewer, AnyDesk и аналоги', parent: 'unw' },
];

interface SoftwareSpec {
  key: string;
  name: string;
  version: string;
  release: string;
  os: string;
  display: string;
  description: string;
  group: SwGroupKey;
  raw: string;
}

const deb = (key: string, name: string, version: string, release: string, os: string, display: string, description: string, group: SwGroupKey): SoftwareSpec => ({
  key, name, version, release, os, display, description, group, raw: `${name} ${version}-${release} amd64`,
});
const win = (key: string, name: string, version: string, publisher: string, display: string, description: string, group: SwGroupKey): SoftwareSpec => ({
  key, name, version, release: '', os: 'Windows', display, description, group, raw: `${name}|${version}|${publisher}`,
});

const SOFTWARE: readonly SoftwareSpec[] = [
  deb('openssh-u', 'openssh-server', '1:8.9p1', '3ubuntu0.10', 'Ubuntu 22.04', 'OpenSSH server', 'Secure shell (SSH) server, for secure access from remote machines', 'sys-net'),
  deb('openssh-d', 'openssh-server', '1:9.2p1', '2+deb12u3', 'Debian 12', 'OpenSSH server', 'Secure shell (SSH) server, for secure access from remote machines', 'sys-net'),
  deb('openssh-a', 'openssh-server', '1:7.9p1', '10+deb10u2+ci202301', 'Astra Linux SE 1.7', 'OpenSSH server', 'Сервер SSH из состава Astra Linux', 'sys-net'),
  { key: 'openssh-r', name: 'openssh-server', version: '8.7p1', release: '3.red80', os: 'РЕД ОС 7.3', display: 'OpenSSH server', description: 'Сервер SSH из состава РЕД ОС', group: 'sys-net', raw: 'openssh-server-8.7p1-3.red80.x86_64' },
  deb('openssl', 'openssl', '3.0.2', '0ubuntu1.18', 'Ubuntu 22.04', 'OpenSSL', 'Secure Sockets Layer toolkit - cryptographic utility', 'sys-os'),
  deb('sudo', 'sudo', '1.9.9', '1ubuntu2.4', 'Ubuntu 22.04', 'sudo', 'Provide limited super user privileges to specific users', 'sys-os'),
  deb('rsyslog', 'rsyslog', '8.2112.0', '2ubuntu2.2', 'Ubuntu 22.04', 'rsyslog', 'Reliable system and kernel logging daemon', 'sys-os'),
  deb('nginx-u', 'nginx', '1.18.0', '6ubuntu14.4', 'Ubuntu 22.04', 'nginx', 'Small, powerful, scalable web/proxy server', 'app-web'),
  deb('nginx-org', 'nginx', '1.24.0', '1~jammy', 'Ubuntu 22.04', 'nginx (nginx.org)', 'High performance web server (official nginx.org build)', 'app-web'),
  deb('apache2', 'apache2', '2.4.52', '1ubuntu4.9', 'Ubuntu 22.04', 'Apache HTTP Server', 'Apache HTTP Server', 'app-web'),
  deb('squid', 'squid', '5.7', '2+deb12u1', 'Debian 12', 'Squid', 'Full featured Web Proxy cache (HTTP proxy)', 'app-web'),
  deb('pg14', 'postgresql-14', '14.13', '0ubuntu0.22.04.1', 'Ubuntu 22.04', 'PostgreSQL 14', 'The World\'s Most Advanced Open Source Relational Database', 'app-db'),
  deb('pgpro15', 'postgrespro-std-15', '15.8.1', '1.astra', 'Astra Linux SE 1.7', 'Postgres Pro Standard 15', 'СУБД Postgres Pro Standard (сертифицированная сборка)', 'app-db'),
  deb('docker', 'docker-ce', '5:26.1.4', '1~ubuntu.22.04~jammy', 'Ubuntu 22.04', 'Docker CE', 'Docker: the open-source application container engine', 'sys-os'),
  deb('containerd', 'containerd.io', '1.6.33', '1', 'Ubuntu 22.04', 'containerd', 'An open and reliable container runtime', 'sys-os'),
  deb('zabbix-agent', 'zabbix-agent', '1:6.0.31', '1+ubuntu22.04', 'Ubuntu 22.04', 'Zabbix agent', 'Zabbix network monitoring solution - agent', 'sys-net'),
  { key: 'zabbix-server', name: 'zabbix-server-pgsql', version: '6.0.31', release: '1.el7', os: 'РЕД ОС 7.3', display: 'Zabbix server', description: 'Zabbix network monitoring solution - server (PostgreSQL)', group: 'app-biz', raw: 'zabbix-server-pgsql-6.0.31-1.el7.x86_64' },
  deb('gitlab', 'gitlab-ce', '17.3.1', 'ce.0', 'Ubuntu 22.04', 'GitLab Community Edition', 'GitLab Community Edition (including NGINX, Postgres, Redis)', 'app-biz'),
  { key: 'log4j', name: 'log4j-core', version: '2.14.1', release: '', os: 'Linux', display: 'Apache Log4j 2', description: 'Библиотека журналирования Java в составе прикладного ПО', group: 'app-biz', raw: 'log4j-core-2.14.1.jar /opt/app/lib/' },
  deb('kesl', 'kesl', '12.1.0.1297', '1', 'Linux', 'Kaspersky Endpoint Security для Linux', 'Антивирусная защита серверов и рабочих станций Linux', 'sec-av'),
  deb('transmission', 'transmission-daemon', '3.00', '2ubuntu2', 'Ubuntu 22.04', 'Transmission', 'Lightweight BitTorrent client (daemon)', 'unw'),
  win('kes', 'Kaspersky Endpoint Security для Windows', '12.5.0.539', 'АО «Лаборатория Касперского»', 'Kaspersky Endpoint Security', 'Антивирусная защита рабочих станций и серверов Windows', 'sec-av'),
  win('ksc', 'Kaspersky Security Center 14.2 Сервер администрирования', '14.2.0.26967', 'АО «Лаборатория Касперского»', 'Kaspersky Security Center', 'Централизованное управление средствами защиты Kaspersky', 'sec-av'),
  win('1c-server', '1С:Предприятие 8 (x86-64)', '8.3.24.1467', 'ООО «1С-Софт»', '1С:Предприятие 8.3 (сервер)', 'Сервер приложений 1С:Предприятие 8.3', 'app-biz'),
  win('1c-thin', '1С:Предприятие 8 Тонкий клиент', '8.3.24.1467', 'ООО «1С-Софт»', '1С:Предприятие 8.3 (тонкий клиент)', 'Тонкий клиент 1С:Предприятие', 'app-biz'),
  win('1c-thin-old', '1С:Предприятие 8 Тонкий клиент', '8.3.18.1483', 'ООО «1С-Софт»', '1С:Предприятие 8.3 (тонкий клиент)', 'Тонкий клиент 1С:Предприятие (устаревшая версия)', 'app-biz'),
  win('mssql', 'Microsoft SQL Server 2019 (64-bit)', '15.0.4375.4', 'Microsoft Corporation', 'SQL Server 2019', 'Microsoft SQL Server 2019 CU27', 'app-db'),
  win('exchange', 'Microsoft Exchange Server 2019 Cumulative Update 14', '15.2.1544.4', 'Microsoft Corporation', 'Exchange Server 2019', 'Почтовый сервер Microsoft Exchange', 'app-biz'),
  win('office', 'Microsoft Office профессиональный плюс 2019 - ru-ru', '16.0.10411.20011', 'Microsoft Corporation', 'Microsoft Office 2019', 'Офисный пакет', 'app-office'),
  win('chrome', 'Google Chrome', '129.0.6668.90', 'Google LLC', 'Google Chrome', 'Браузер', 'app-office'),
  win('yabrowser', 'Яндекс Браузер', '24.7.1.1120', 'ООО «ЯНДЕКС»', 'Яндекс Браузер', 'Браузер', 'app-office'),
  win('firefox', 'Mozilla Firefox ESR (x64 ru)', '115.15.0', 'Mozilla', 'Firefox ESR', 'Браузер', 'app-office'),
  win('7zip', '7-Zip 23.01 (x64)', '23.01', 'Igor Pavlov', '7-Zip', 'Архиватор', 'app-office'),
  win('cryptopro', 'КриптоПро CSP', '5.0.12998', 'ООО «КРИПТО-ПРО»', 'КриптоПро CSP 5.0', 'Криптопровайдер (СКЗИ класса КС1)', 'sec-crypto'),
  win('vipnet', 'ViPNet Client 4', '4.5.3.65102', 'АО «ИнфоТеКС»', 'ViPNet Client', 'VPN-клиент и персональный сетевой экран', 'sec-crypto'),
  win('veeam', 'Veeam Backup & Replication', '12.1.2.172', 'Veeam Software Group GmbH', 'Veeam B&R', 'Резервное копирование виртуальной инфраструктуры', 'app-biz'),
  win('vscode', 'Microsoft Visual Studio Code (User)', '1.93.1', 'Microsoft Corporation', 'VS Code', 'Редактор кода', 'app-office'),
  win('git-win', 'Git', '2.46.0', 'The Git Development Community', 'Git for Windows', 'Система контроля версий', 'app-office'),
  win('teamviewer', 'TeamViewer', '15.57.5', 'TeamViewer Germany GmbH', 'TeamViewer', 'Удалённый доступ к рабочему столу', 'unw-rat'),
  win('anydesk', 'AnyDesk', '8.0.11', 'AnyDesk Software GmbH', 'AnyDesk', 'Удалённый доступ к рабочему столу', 'unw-rat'),
  win('qbittorrent', 'qBittorrent', '4.6.5', 'The qBittorrent project', 'qBittorrent', 'BitTorrent-клиент', 'unw'),
];

/** The tsvector PostgreSQL stores for a package: to_tsvector('simple', name and display name). */
function tsvectorOf(text: string): string {
  return tsvectorToString(toTsVector(text));
}

// ---------------------------------------------------------------- assets

type Family = 'linux' | 'windows' | 'netdev';
type Kind = 'server' | 'workstation' | 'device';
type HwClass = 'phys' | 'vm' | 'ws' | 'net' | 'printer';
/** A software key, an optional one with its probability, or alternatives separated by `|`. */
type SwItem = string | readonly [string, number];

interface RoleSpec {
  key: string;
  prefix: string;
  titles: readonly string[];
  type: string;
  zones: readonly (readonly [ZoneKey, number])[];
  os: readonly string[];
  family: Family;
  kind: Kind;
  value: number;
  exposure: number;
  count: number;
  group: GroupKey;
  sw: readonly SwItem[];
  hw: HwClass;
}

const ROLES: readonly RoleSpec[] = [
  { key: 'db', prefix: 'srv-db', titles: ['Сервер БД бухгалтерии', 'Сервер БД CRM', 'Реплика БД биллинга', 'Сервер БД кадрового учёта'], type: 'Host', zones: [['db', 1]], os: ['Astra Linux Special Edition 1.7.5', 'Ubuntu 22.04.4 LTS'], family: 'linux', kind: 'server', value: 1, exposure: 4, count: 4, group: 'dba', sw: ['openssh', 'pg', 'zabbix-agent', ['kesl', 0.9], 'rsyslog', 'sudo'], hw: 'phys' },
  { key: '1c', prefix: 'srv-1c', titles: ['Сервер 1С:Предприятие, бухгалтерия', 'Сервер 1С:ЗУП'], type: 'Host', zones: [['app', 1]], os: ['Windows Server 2019 Standard'], family: 'windows', kind: 'server', value: 1, exposure: 4, count: 2, group: 'srv', sw: ['1c-server', 'mssql', ['kes', 0.95], 'cryptopro'], hw: 'phys' },
  { key: 'dc', prefix: 'dc', titles: ['Контроллер домена corp.local'], type: 'Host', zones: [['infra', 1]], os: ['Windows Server 2022 Standard'], family: 'windows', kind: 'server', value: 1, exposure: 4, count: 2, group: 'srv', sw: ['kes'], hw: 'vm' },
  { key: 'web', prefix: 'web', titles: ['Веб-сервер корпоративного портала', 'Веб-сервер интернет-магазина', 'Балансировщик API'], type: 'Host', zones: [['dmz', 1]], os: ['Ubuntu 22.04.4 LTS', 'Debian GNU/Linux 12 (bookworm)'], family: 'linux', kind: 'server', value: 2, exposure: 2, count: 3, group: 'net', sw: ['openssh', 'nginx-u|nginx-org', 'openssl', ['kesl', 0.8], 'rsyslog', ['log4j', 0.35], ['apache2', 0.3]], hw: 'vm' },
  { key: 'mail', prefix: 'mail', titles: ['Почтовый сервер Exchange'], type: 'Host', zones: [['dmz', 1]], os: ['Windows Server 2019 Standard'], family: 'windows', kind: 'server', value: 2, exposure: 2, count: 1, group: 'srv', sw: ['exchange', 'kes'], hw: 'vm' },
  { key: 'vpn', prefix: 'vpn-gw', titles: ['VPN-шлюз удалённого доступа'], type: 'Network device', zones: [['dmz', 1]], os: ['ViPNet Coordinator HW 4.5'], family: 'netdev', kind: 'device', value: 1, exposure: 1, count: 1, group: 'net', sw: [], hw: 'net' },
  { key: 'fw', prefix: 'fw', titles: ['Межсетевой экран периметра', 'Межсетевой экран сегмента ЦОД'], type: 'Network device', zones: [['dmz', 1]], os: ['UserGate UTM 7.1'], family: 'netdev', kind: 'device', value: 1, exposure: 1, count: 2, group: 'net', sw: [], hw: 'net' },
  { key: 'proxy', prefix: 'proxy', titles: ['Прокси-сервер Squid'], type: 'Host', zones: [['dmz', 1]], os: ['Debian GNU/Linux 12 (bookworm)'], family: 'linux', kind: 'server', value: 2, exposure: 3, count: 1, group: 'net', sw: ['openssh', 'squid', 'rsyslog'], hw: 'vm' },
  { key: 'fs', prefix: 'fs', titles: ['Файловый сервер', 'Файловый сервер филиалов'], type: 'Host', zones: [['app', 1]], os: ['Windows Server 2019 Standard'], family: 'windows', kind: 'server', value: 2, exposure: 4, count: 2, group: 'srv', sw: [['kes', 0.9], '7zip'], hw: 'phys' },
  { key: 'backup', prefix: 'backup', titles: ['Сервер резервного копирования Veeam'], type: 'Host', zones: [['dc2', 1]], os: ['Windows Server 2022 Standard'], family: 'windows', kind: 'server', value: 2, exposure: 5, count: 1, group: 'srv', sw: ['veeam', 'kes'], hw: 'phys' },
  { key: 'k8s', prefix: 'k8s-node', titles: ['Узел кластера Kubernetes'], type: 'Host', zones: [['app', 1]], os: ['Ubuntu 22.04.4 LTS'], family: 'linux', kind: 'server', value: 3, exposure: 4, count: 3, group: 'srv', sw: ['openssh', 'docker', 'containerd', 'zabbix-agent', 'rsyslog', 'sudo', ['log4j', 0.3]], hw: 'vm' },
  { key: 'git', prefix: 'git', titles: ['GitLab, репозитории разработки'], type: 'Host', zones: [['app', 1]], os: ['Ubuntu 22.04.4 LTS'], family: 'linux', kind: 'server', value: 2, exposure: 4, count: 1, group: 'srv', sw: ['openssh', 'gitlab', 'nginx-org', 'pg14', 'kesl'], hw: 'vm' },
  { key: 'siem', prefix: 'siem-col', titles: ['Коллектор событий SIEM'], type: 'Host', zones: [['infra', 1]], os: ['Astra Linux Special Edition 1.7.5'], family: 'linux', kind: 'server', value: 2, exposure: 4, count: 2, group: 'soc', sw: ['openssh', 'rsyslog', 'kesl'], hw: 'vm' },
  { key: 'ksc', prefix: 'ksc', titles: ['Сервер администрирования Kaspersky Security Center'], type: 'Host', zones: [['infra', 1]], os: ['Windows Server 2019 Standard'], family: 'windows', kind: 'server', value: 2, exposure: 4, count: 1, group: 'sec', sw: ['ksc', 'kes', 'mssql'], hw: 'vm' },
  { key: 'mon', prefix: 'mon', titles: ['Сервер мониторинга Zabbix'], type: 'Host', zones: [['infra', 1]], os: ['РЕД ОС 7.3'], family: 'linux', kind: 'server', value: 3, exposure: 4, count: 1, group: 'srv', sw: ['openssh', 'zabbix-server'], hw: 'vm' },
  { key: 'test', prefix: 'test-srv', titles: ['Тестовый стенд', 'Стенд предрелизного тестирования'], type: 'Host', zones: [['dc2', 1]], os: ['Debian GNU/Linux 12 (bookworm)'], family: 'linux', kind: 'server', value: 5, exposure: 4, count: 2, group: 'srv', sw: ['openssh', 'nginx-u', 'pg14', ['transmission', 0.5], ['log4j', 0.5]], hw: 'vm' },
  { key: 'ws-buh', prefix: 'ws-buh', titles: ['АРМ бухгалтера'], type: 'Workstation', zones: [['msk', 0.6], ['spb', 0.2], ['ekb', 0.2]], os: ['Windows 10 Pro 22H2'], family: 'windows', kind: 'workstation', value: 3, exposure: 3, count: 8, group: 'helpdesk', sw: [['kes', 0.92], '1c-thin|1c-thin-old', 'office', 'cryptopro', 'yabrowser', ['teamviewer', 0.1]], hw: 'ws' },
  { key: 'ws', prefix: 'ws', titles: ['АРМ сотрудника'], type: 'Workstation', zones: [['msk', 0.5], ['spb', 0.2], ['ekb', 0.15], ['nsk', 0.15]], os: ['Windows 10 Pro 22H2', 'Windows 11 Pro 23H2'], family: 'windows', kind: 'workstation', value: 4, exposure: 3, count: 14, group: 'helpdesk', sw: [['kes', 0.9], 'office', 'chrome|yabrowser|firefox', ['7zip', 0.5], ['teamviewer', 0.12], ['anydesk', 0.06], ['qbittorrent', 0.07], ['vipnet', 0.2]], hw: 'ws' },
  { key: 'ws-dev', prefix: 'ws-dev', titles: ['АРМ разработчика'], type: 'Workstation', zones: [['msk', 1]], os: ['Windows 11 Pro 23H2'], family: 'windows', kind: 'workstation', value: 4, exposure: 3, count: 6, group: 'helpdesk', sw: [['kes', 0.85], 'vscode', 'git-win', 'chrome|firefox', ['teamviewer', 0.15], ['qbittorrent', 0.1]], hw: 'ws' },
  { key: 'prn', prefix: 'prn', titles: ['Сетевое МФУ'], type: 'Network device', zones: [['msk', 0.5], ['spb', 0.25], ['ekb', 0.25]], os: ['HP FutureSmart 5.6'], family: 'netdev', kind: 'device', value: 5, exposure: 4, count: 3, group: 'helpdesk', sw: [], hw: 'printer' },
];

interface AssetSeed {
  id: string;
  host: string;
  name: string;
  role: string;
  family: Family;
  kind: Kind;
  zone: ZoneKey;
  ip: string;
  mac: string;
  fqdn: string;
  os: string;
  sw: Set<string>;
  group: GroupKey;
  value: number;
  createdUs: number;
  assetGroupIds: string[];
}

// ---------------------------------------------------------------- finding types

type Cond = readonly [field: string, fn: 'eq' | 'in' | 'gt' | 'regex' | 'like', value: string | number | readonly string[], sample?: string];

interface RuleSpec {
  conds: readonly Cond[];
  groupBy: readonly string[];
  count: number;
  windowSec: number;
  unique?: string;
  template: string;
}

interface FindingSpec {
  title: string;
  type: string;
  category: string;
  source: EventType;
  risk: number;
  weight: number;
  port?: number;
  mitre?: string;
  description: string;
  solution: string;
  target: (a: AssetSeed) => boolean;
  rule?: RuleSpec;
  remote?: boolean;
  cpes?: readonly string[];
  identifier?: Record<string, string>;
}

const isLinuxSrv = (a: AssetSeed) => a.family === 'linux' && a.kind === 'server';
const isWin = (a: AssetSeed) => a.family === 'windows';
const isWinSrv = (a: AssetSeed) => a.family === 'windows' && a.kind === 'server';
const isWs = (a: AssetSeed) => a.kind === 'workstation';
const isServer = (a: AssetSeed) => a.kind === 'server';
const isRole = (...roles: string[]) => (a: AssetSeed) => roles.includes(a.role);
const hasSw = (...keys: string[]) => (a: AssetSeed) => keys.some((k) => a.sw.has(k));
const noAv = (a: AssetSeed) => a.family !== 'netdev' && !a.sw.has('kes') && !a.sw.has('kesl');

const IMPACT: Record<string, readonly [string, string]> = {
  bruteforce: ['Компрометация учётной записи и несанкционированный доступ к узлу.', 'Ограничить число попыток входа, включить блокировку учётных записей и двухфакторную аутентификацию.'],
  network_anomaly: ['Разведка инфраструктуры, подготовка к атаке или утечка данных.', 'Ограничить доступ межсетевым экраном, проверить источник трафика.'],
  malware: ['Заражение узла, шифрование или кража данных, распространение по сети.', 'Изолировать узел, выполнить полную проверку антивирусом, сменить пароли пользователей узла.'],
  account_compromise: ['Действия злоумышленника от имени легитимного пользователя.', 'Сбросить пароль, завершить сессии, проверить действия учётной записи.'],
  privilege_escalation: ['Получение злоумышленником прав администратора домена.', 'Проверить изменение с владельцем, удалить лишние права, включить аудит изменения групп.'],
  execution: ['Выполнение произвольного кода на узле.', 'Ограничить PowerShell режимом Constrained Language, включить AMSI и журналирование скриптов.'],
  exfiltration: ['Утечка конфиденциальной информации.', 'Заблокировать направление трафика, проверить процессы-источники.'],
  c2: ['Узел управляется злоумышленником извне.', 'Изолировать узел, заблокировать адрес C&C на периметре, провести расследование.'],
  defense_evasion: ['Сокрытие следов атаки и отключение средств защиты.', 'Восстановить защиту, проверить узел, ограничить права на управление журналами и СЗИ.'],
  persistence: ['Закрепление злоумышленника в системе.', 'Проверить назначение задачи, удалить несанкционированные задачи.'],
  credential_access: ['Кража хешей и билетов Kerberos, компрометация привилегированных учётных записей.', 'Включить Credential Guard, использовать AES для сервисных учётных записей, сменить пароли.'],
  web_attack: ['Компрометация веб-приложения и данных в БД.', 'Проверить журналы приложения, включить WAF, исправить уязвимый код.'],
  policy_violation: ['Нарушение политики информационной безопасности.', 'Согласовать изменение с владельцем, откатить несанкционированные изменения.'],
  vulnerability: ['Эксплуатация уязвимости и удалённое выполнение кода.', 'Установить обновление производителя; до установки ограничить сетевой доступ к службе.'],
  software_compliance: ['Использование неразрешённого или уязвимого ПО.', 'Удалить или обновить ПО в соответствии с реестром разрешённого ПО.'],
  availability: ['Потеря видимости событий безопасности.', 'Проверить доступность источника и агента сбора, состояние сети и службы.'],
  manual: ['Зависит от обстоятельств, оценивается аналитиком.', 'Действовать по плану реагирования на инциденты ИБ.'],
};

const CATEGORY_IDS: Record<string, string> = {
  bruteforce: 'cat-01', network_anomaly: 'cat-02', malware: 'cat-03', account_compromise: 'cat-04', privilege_escalation: 'cat-05',
  execution: 'cat-06', exfiltration: 'cat-07', c2: 'cat-08', defense_evasion: 'cat-09', persistence: 'cat-10', credential_access: 'cat-11',
  web_attack: 'cat-12', policy_violation: 'cat-13', vulnerability: 'cat-14', software_compliance: 'cat-15', availability: 'cat-16', manual: 'cat-17',
};

const FINDINGS: readonly FindingSpec[] = [
  // ---- correlation rules
  { title: 'Подбор пароля SSH', type: 'bruteforce', category: 'Подбор учётных данных', source: 'engine_go_result', risk: 6.5, weight: 10, port: 22, mitre: 'T1110.001', target: isLinuxSrv,
    description: 'Серия неудачных попыток входа по SSH с одного адреса за короткий промежуток времени.', solution: 'Заблокировать адрес источника, запретить вход по паролю (PasswordAuthentication no), настроить fail2ban.',
    rule: { conds: [['process.name', 'eq', 'sshd'], ['event.outcome', 'eq', 'failure']], groupBy: ['src.ip', 'dst.host'], count: 10, windowSec: 300, template: 'Подбор пароля SSH: {{ .First.src.ip }} → {{ .First.dst.host }}, попыток: {{ .Count }}' } },
  { title: 'Подбор пароля RDP', type: 'bruteforce', category: 'Подбор учётных данных', source: 'engine_go_result', risk: 7, weight: 8, port: 3389, mitre: 'T1110.001', target: isWin,
    description: 'Массовые неудачные попытки входа (событие 4625, тип входа 10) на узел Windows.', solution: 'Закрыть RDP из внешних сетей, включить NLA и политику блокировки учётных записей.',
    rule: { conds: [['event.code', 'eq', '4625'], ['logon.type', 'in', ['3', '10']]], groupBy: ['src.ip', 'dst.host'], count: 20, windowSec: 600, template: 'Подбор пароля RDP: {{ .First.src.ip }} → {{ .First.dst.host }} ({{ .First.user.name }})' } },
  { title: 'Port scan detected', type: 'network_anomaly', category: 'Сетевые аномалии', source: 'engine_go_result', risk: 4, weight: 12, mitre: 'T1046', target: (a) => isServer(a) || a.family === 'netdev',
    description: 'A single source connected to many distinct ports of the host within a minute.', solution: 'Verify the source; block it on the perimeter firewall unless it is an approved scanner.',
    rule: { conds: [['event.category', 'eq', 'network'], ['net.action', 'in', ['deny', 'drop']]], groupBy: ['src.ip'], unique: 'dst.port', count: 50, windowSec: 60, template: 'Port scan from {{ .First.src.ip }}: {{ .Unique }} ports in 60 s' } },
  { title: 'Обнаружен вредоносный файл', type: 'malware', category: 'Вредоносное ПО', source: 'engine_go_result', risk: 8.5, weight: 7, mitre: 'T1204.002', target: (a) => isWs(a) || isRole('fs', 'mail')(a),
    description: 'Антивирус Kaspersky Endpoint Security обнаружил вредоносный объект и не смог его вылечить.', solution: 'Изолировать узел, удалить объект, выполнить полную проверку и выяснить источник заражения.',
    rule: { conds: [['event.provider', 'eq', 'Kaspersky Endpoint Security'], ['event.action', 'in', ['malware_detected', 'object_not_disinfected']]], groupBy: ['dst.host', 'file.hash.sha256'], count: 1, windowSec: 60, template: 'Вредоносный файл {{ .First.file.name }} на {{ .First.dst.host }}' } },
  { title: 'Успешный вход после серии неудачных попыток', type: 'account_compromise', category: 'Компрометация учётных записей', source: 'engine_go_result', risk: 8, weight: 4, mitre: 'T1110', target: isWinSrv,
    description: 'После нескольких неудачных попыток входа с того же адреса выполнен успешный вход.', solution: 'Сбросить пароль учётной записи, проверить её действия после входа.',
    rule: { conds: [['event.code', 'in', ['4625', '4624']]], groupBy: ['src.ip', 'user.name'], count: 6, windowSec: 900, template: 'Успешный вход {{ .Last.user.name }} после {{ .Count }} неудачных попыток с {{ .First.src.ip }}' } },
  { title: 'Вход под отключённой учётной записью', type: 'account_compromise', category: 'Компрометация учётных записей', source: 'engine_go_result', risk: 6, weight: 3, mitre: 'T1078', target: isRole('dc'),
    description: 'Попытка аутентификации под отключённой учётной записью (4625, SubStatus 0xC0000072).', solution: 'Выяснить, кто и откуда использует учётную запись уволенного сотрудника.',
    rule: { conds: [['event.code', 'eq', '4625'], ['status.sub', 'eq', '0xC0000072']], groupBy: ['user.name'], count: 1, windowSec: 60, template: 'Вход под отключённой УЗ {{ .First.user.name }} с {{ .First.src.ip }}' } },
  { title: 'Добавление пользователя в группу «Администраторы домена»', type: 'privilege_escalation', category: 'Повышение привилегий', source: 'engine_go_result', risk: 8.8, weight: 2, mitre: 'T1098', target: isRole('dc'),
    description: 'Учётная запись добавлена в привилегированную группу домена.', solution: 'Подтвердить изменение заявкой; при отсутствии заявки удалить из группы и расследовать.',
    rule: { conds: [['event.code', 'in', ['4728', '4732', '4756']], ['group.name', 'in', ['Domain Admins', 'Администраторы домена', 'Enterprise Admins']]], groupBy: ['target.user.name'], count: 1, windowSec: 60, template: '{{ .First.subject.user.name }} добавил {{ .First.target.user.name }} в {{ .First.group.name }}' } },
  { title: 'Запуск PowerShell с закодированной командой', type: 'execution', category: 'Выполнение кода', source: 'engine_go_result', risk: 7.5, weight: 5, mitre: 'T1059.001', target: isWin,
    description: 'powershell.exe запущен с параметром -EncodedCommand.', solution: 'Декодировать команду, проверить родительский процесс и узел на наличие ВПО.',
    rule: { conds: [['process.name', 'eq', 'powershell.exe'], ['process.cmdline', 'regex', '(?i)\\s-e(nc|ncodedcommand)?\\s', 'powershell.exe -NoP -W Hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoA']], groupBy: ['dst.host', 'user.name'], count: 1, windowSec: 60, template: 'Encoded PowerShell на {{ .First.dst.host }} ({{ .First.user.name }})' } },
  { title: 'DNS tunneling suspected', type: 'exfiltration', category: 'Утечка данных', source: 'engine_go_result', risk: 7.2, weight: 3, port: 53, mitre: 'T1071.004', target: (a) => isWs(a) || isRole('proxy')(a),
    description: 'Unusually long and frequent DNS queries to one domain from a single host.', solution: 'Block the domain on the DNS resolver and inspect the host for tunnelling tools.',
    rule: { conds: [['event.category', 'eq', 'dns'], ['dns.query.length', 'gt', 60]], groupBy: ['src.ip', 'dns.domain'], count: 100, windowSec: 300, template: 'DNS tunneling: {{ .First.src.ip }} → {{ .First.dns.domain }}' } },
  { title: 'Обращение к известному C&C-серверу', type: 'c2', category: 'Управление и контроль (C2)', source: 'engine_go_result', risk: 9.3, weight: 2, port: 443, mitre: 'T1071.001', target: (a) => isWs(a) || isServer(a),
    description: 'Узел установил соединение с адресом из списка индикаторов компрометации.', solution: 'Изолировать узел, заблокировать адрес на периметре, провести криминалистический анализ.',
    rule: { conds: [['event.category', 'eq', 'network'], ['dst.ip', 'in', ['store:ioc_ip']]], groupBy: ['src.ip', 'dst.ip'], count: 1, windowSec: 60, template: 'C&C: {{ .First.src.ip }} → {{ .First.dst.ip }}:{{ .First.dst.port }}' } },
  { title: 'Массовое удаление файлов на файловом сервере', type: 'malware', category: 'Вредоносное ПО', source: 'engine_go_result', risk: 7.8, weight: 1.5, port: 445, mitre: 'T1485', target: isRole('fs'),
    description: 'Одна учётная запись удалила более 500 файлов за 10 минут (событие 4660).', solution: 'Заблокировать учётную запись, проверить признаки шифровальщика, восстановить данные из резервной копии.',
    rule: { conds: [['event.code', 'eq', '4660']], groupBy: ['user.name', 'dst.host'], count: 500, windowSec: 600, template: '{{ .First.user.name }} удалил {{ .Count }} файлов на {{ .First.dst.host }}' } },
  { title: 'Очистка журнала событий безопасности', type: 'defense_evasion', category: 'Обход средств защиты', source: 'engine_go_result', risk: 8.1, weight: 1.5, mitre: 'T1070.001', target: isWin,
    description: 'Журнал Security очищен (событие 1102).', solution: 'Выяснить причину очистки; восстановить события из SIEM, проверить узел.',
    rule: { conds: [['event.code', 'eq', '1102']], groupBy: ['dst.host'], count: 1, windowSec: 60, template: 'Журнал безопасности очищен на {{ .First.dst.host }} пользователем {{ .First.user.name }}' } },
  { title: 'Создание запланированной задачи', type: 'persistence', category: 'Закрепление', source: 'engine_go_result', risk: 5.5, weight: 4, mitre: 'T1053.005', target: isWin,
    description: 'Создана новая запланированная задача (событие 4698).', solution: 'Проверить назначение задачи и её автора.',
    rule: { conds: [['event.code', 'eq', '4698']], groupBy: ['dst.host', 'task.name'], count: 1, windowSec: 60, template: 'Новая задача {{ .First.task.name }} на {{ .First.dst.host }}' } },
  { title: 'Kerberoasting attempt', type: 'credential_access', category: 'Доступ к учётным данным', source: 'engine_go_result', risk: 7.6, weight: 1.5, port: 88, mitre: 'T1558.003', target: isRole('dc'),
    description: 'Many TGS requests with RC4 encryption (4769, 0x17) for different services from one account.', solution: 'Rotate service account passwords, enforce AES for Kerberos.',
    rule: { conds: [['event.code', 'eq', '4769'], ['ticket.encryption', 'eq', '0x17']], groupBy: ['user.name'], unique: 'service.name', count: 10, windowSec: 600, template: 'Kerberoasting: {{ .First.user.name }} запросил {{ .Unique }} сервисных билетов' } },
  { title: 'Pass-the-Hash attempt', type: 'credential_access', category: 'Доступ к учётным данным', source: 'engine_go_result', risk: 8.9, weight: 1, mitre: 'T1550.002', target: isWin,
    description: 'Logon type 9 with the seclogo logon process: typical of pass-the-hash tooling.', solution: 'Isolate the host, reset credentials of the affected accounts, enable Credential Guard.',
    rule: { conds: [['event.code', 'eq', '4624'], ['logon.type', 'eq', '9'], ['logon.process', 'eq', 'seclogo']], groupBy: ['dst.host', 'user.name'], count: 1, windowSec: 60, template: 'Pass-the-Hash: {{ .First.user.name }} на {{ .First.dst.host }}' } },
  { title: 'Аномальный объём исходящего трафика', type: 'exfiltration', category: 'Утечка данных', source: 'engine_go_result', risk: 6.2, weight: 3, port: 443, mitre: 'T1048', target: (a) => isServer(a) || isRole('proxy')(a),
    description: 'Объём исходящего трафика узла превысил базовый уровень более чем в 10 раз.', solution: 'Определить процесс-источник и получателя трафика.',
    rule: { conds: [['event.category', 'eq', 'netflow'], ['net.direction', 'eq', 'outbound']], groupBy: ['src.ip'], count: 1, windowSec: 3600, template: 'Исходящий трафик {{ .First.src.ip }}: {{ .First.net.bytes_out }} байт за час' } },
  { title: 'Вход в систему в нерабочее время', type: 'account_compromise', category: 'Компрометация учётных записей', source: 'engine_go_result', risk: 3.5, weight: 6, mitre: 'T1078', target: (a) => isWs(a) || isWinSrv(a),
    description: 'Интерактивный вход пользователя вне рабочего графика (22:00–07:00 МСК или выходные).', solution: 'Уточнить у пользователя или руководителя, выполнялся ли вход.',
    rule: { conds: [['event.code', 'eq', '4624'], ['logon.type', 'in', ['2', '10']]], groupBy: ['user.name', 'dst.host'], count: 1, windowSec: 60, template: 'Вход {{ .First.user.name }} на {{ .First.dst.host }} в нерабочее время' } },
  { title: 'Suspicious LSASS memory access', type: 'credential_access', category: 'Доступ к учётным данным', source: 'engine_go_result', risk: 9.1, weight: 1, mitre: 'T1003.001', target: isWin,
    description: 'A process opened lsass.exe with memory-read access rights (Sysmon event 10).', solution: 'Isolate the host, identify the process and reset credentials cached on the host.',
    rule: { conds: [['event.code', 'eq', '10'], ['target.process.name', 'eq', 'lsass.exe'], ['access.mask', 'in', ['0x1010', '0x1410', '0x1FFFFF']]], groupBy: ['dst.host', 'process.name'], count: 1, windowSec: 60, template: 'Доступ к памяти LSASS: {{ .First.process.name }} на {{ .First.dst.host }}' } },
  { title: 'SQL injection attempt', type: 'web_attack', category: 'Атаки на веб-приложения', source: 'engine_go_result', risk: 6.8, weight: 6, port: 443, mitre: 'T1190', target: isRole('web'),
    description: 'HTTP requests with SQL injection patterns in the query string.', solution: 'Check the application logs, enable WAF rules, fix input validation.',
    rule: { conds: [['http.url', 'regex', '(?i)(union\\s+select|\\bor\\s+1=1|sleep\\()', "/catalog?id=1' OR 1=1--"]], groupBy: ['src.ip', 'dst.host'], count: 5, windowSec: 60, template: 'SQLi: {{ .First.src.ip }} → {{ .First.dst.host }}{{ .First.http.url }}' } },
  { title: 'Изменение правил межсетевого экрана', type: 'policy_violation', category: 'Нарушение политик ИБ', source: 'engine_go_result', risk: 5, weight: 2, mitre: 'T1562.004', target: isRole('fw', 'vpn'),
    description: 'Изменена политика фильтрации межсетевого экрана.', solution: 'Сверить изменение с заявкой в ServiceDesk.',
    rule: { conds: [['event.action', 'in', ['rule_added', 'rule_deleted', 'policy_changed']], ['dst.host', 'like', 'fw-']], groupBy: ['dst.host', 'user.name'], count: 1, windowSec: 60, template: '{{ .First.user.name }}: {{ .First.event.action }} на {{ .First.dst.host }}' } },
  { title: 'Отключение антивирусной защиты', type: 'defense_evasion', category: 'Обход средств защиты', source: 'engine_go_result', risk: 8, weight: 3, mitre: 'T1562.001', target: hasSw('kes', 'kesl'),
    description: 'Защита Kaspersky Endpoint Security отключена или задача защиты остановлена.', solution: 'Включить защиту через Kaspersky Security Center, выяснить причину отключения.',
    rule: { conds: [['event.provider', 'eq', 'Kaspersky Endpoint Security'], ['event.action', 'in', ['protection_disabled', 'task_stopped']]], groupBy: ['dst.host'], count: 1, windowSec: 60, template: 'Защита KES отключена на {{ .First.dst.host }}' } },
  { title: 'Создание учётной записи в нерабочее время', type: 'persistence', category: 'Закрепление', source: 'engine_go_result', risk: 4.5, weight: 1.5, mitre: 'T1136.002', target: isRole('dc'),
    description: 'Создана доменная учётная запись (4720) вне рабочего времени.', solution: 'Проверить заявку на создание учётной записи.',
    rule: { conds: [['event.code', 'eq', '4720']], groupBy: ['target.user.name'], count: 1, windowSec: 60, template: 'Создана УЗ {{ .First.target.user.name }} пользователем {{ .First.subject.user.name }}' } },
  // ---- vulnerability scans
  { title: 'Уязвимость OpenSSH regreSSHion (CVE-2024-6387)', type: 'vulnerability', category: 'Уязвимости', source: 'vulnerability', risk: 8.1, weight: 3, port: 22, target: hasSw('openssh-u', 'openssh-d', 'openssh-r'), remote: true,
    description: 'Состояние гонки в обработчике сигналов sshd позволяет удалённо выполнить код от root без аутентификации.', solution: 'Обновить openssh-server до исправленной версии; временно — LoginGraceTime 0.',
    cpes: ['cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*', 'cpe:2.3:a:openbsd:openssh:9.2:p1:*:*:*:*:*:*'], identifier: { nessus: '201194', bdu: 'BDU:2024-04990' } },
  { title: 'nginx HTTP/2 Rapid Reset (CVE-2023-44487)', type: 'vulnerability', category: 'Уязвимости', source: 'vulnerability', risk: 7.5, weight: 2, port: 443, target: hasSw('nginx-u', 'nginx-org'), remote: true,
    description: 'Отказ в обслуживании при быстрой отмене потоков HTTP/2.', solution: 'Обновить nginx, ограничить keepalive_requests и число одновременных потоков.',
    cpes: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'], identifier: { nessus: '183390', bdu: 'BDU:2023-06635' } },
  { title: 'SMBv1 включён на узле', type: 'vulnerability', category: 'Уязвимости', source: 'vulnerability', risk: 5.9, weight: 2, port: 445, target: isWinSrv,
    description: 'Сервер принимает соединения по устаревшему протоколу SMBv1 (MS17-010, EternalBlue).', solution: 'Отключить SMBv1: Set-SmbServerConfiguration -EnableSMB1Protocol $false.',
    identifier: { nessus: '96982' } },
  { title: 'Устаревшая версия PostgreSQL', type: 'vulnerability', category: 'Уязвимости', source: 'vulnerability', risk: 6.5, weight: 1.5, port: 5432, target: hasSw('pg14', 'pgpro15'),
    description: 'Установленная версия СУБД содержит исправленные в следующих выпусках уязвимости (CVE-2024-7348).', solution: 'Установить последний минорный выпуск.',
    cpes: ['cpe:2.3:a:postgresql:postgresql:14.13:*:*:*:*:*:*:*'], identifier: { nessus: '205260' } },
  { title: 'Self-signed TLS certificate', type: 'vulnerability', category: 'Уязвимости', source: 'vulnerability', risk: 2.6, weight: 3, port: 443, target: (a) => isRole('web', 'mail', 'git', 'ksc', 'mon')(a),
    description: 'The service presents a certificate not signed by a trusted CA.', solution: 'Issue a certificate from the corporate CA.', identifier: { nessus: '57582' } },
  { title: 'Log4Shell (CVE-2021-44228)', type: 'vulnerability', category: 'Уязвимости', source: 'vulnerability', risk: 10, weight: 1, port: 8080, target: hasSw('log4j'), remote: true,
    description: 'Удалённое выполнение кода через подстановку JNDI в Apache Log4j 2 до версии 2.15.0.', solution: 'Обновить log4j-core до 2.17.1 или новее; временно — удалить класс JndiLookup.',
    cpes: ['cpe:2.3:a:apache:log4j:2.14.1:*:*:*:*:*:*:*'], identifier: { nessus: '156032', bdu: 'BDU:2021-05969' } },
  // ---- software compliance
  { title: 'Установлено запрещённое ПО удалённого доступа (TeamViewer, AnyDesk)', type: 'software_compliance', category: 'Контроль ПО', source: 'software_compliance_source', risk: 5, weight: 4, target: hasSw('teamviewer', 'anydesk'),
    description: 'На узле установлено средство удалённого доступа, запрещённое политикой ИБ.', solution: 'Удалить ПО; для удалённой поддержки использовать корпоративный VPN и RDP.' },
  { title: 'Отсутствует антивирусное ПО', type: 'software_compliance', category: 'Контроль ПО', source: 'software_compliance_source', risk: 6, weight: 2, target: noAv,
    description: 'На узле не обнаружен Kaspersky Endpoint Security.', solution: 'Установить KES через задачу удалённой установки Kaspersky Security Center.' },
  { title: 'Установлен torrent-клиент', type: 'software_compliance', category: 'Контроль ПО', source: 'software_compliance_source', risk: 4, weight: 2, target: hasSw('qbittorrent', 'transmission'),
    description: 'Обнаружен BitTorrent-клиент.', solution: 'Удалить ПО, провести беседу с пользователем.' },
  { title: 'Устаревшая версия 1С:Предприятие', type: 'software_compliance', category: 'Контроль ПО', source: 'software_compliance_source', risk: 3, weight: 2, target: hasSw('1c-thin-old'),
    description: 'Версия платформы 1С ниже минимально допустимой (8.3.22).', solution: 'Обновить клиент 1С до версии сервера.' },
  // ---- watchdog
  { title: 'Источник событий перестал присылать данные', type: 'availability', category: 'Доступность источников', source: 'watchdog_result', risk: 4, weight: 4, target: (a) => isServer(a) || a.family === 'netdev',
    description: 'От источника не поступало событий дольше порога (30 минут).', solution: 'Проверить службу журналирования на узле и сетевую доступность коллектора.' },
  { title: 'Агент сбора недоступен', type: 'availability', category: 'Доступность источников', source: 'watchdog_result', risk: 3.5, weight: 2, target: isServer,
    description: 'Агент сбора не выходил на связь с сервером управления более 15 минут.', solution: 'Проверить состояние агента и службы radar-agent.' },
  { title: 'EPS threshold exceeded on collector', type: 'availability', category: 'Доступность источников', source: 'watchdog_result', risk: 2, weight: 1.5, target: isRole('siem'),
    description: 'The collector received more events per second than licensed.', solution: 'Tune noisy sources or extend the licence.' },
  { title: 'Host unreachable', type: 'availability', category: 'Доступность источников', source: 'watchdog_result', risk: 3, weight: 2.5, target: (a) => isServer(a) || a.family === 'netdev',
    description: 'The host does not answer ICMP and TCP probes.', solution: 'Check the host and network path.' },
  // ---- registered by hand
  { title: 'Фишинговое письмо (сообщение пользователя)', type: 'manual', category: 'Ручная регистрация', source: 'manual_source', risk: 5.5, weight: 3, target: isWs,
    description: 'Пользователь переслал подозрительное письмо со ссылкой на поддельную страницу входа.', solution: 'Заблокировать отправителя и ссылку, проверить, кто ещё получил письмо.' },
  { title: 'Утечка учётных данных в открытых источниках', type: 'manual', category: 'Ручная регистрация', source: 'manual_source', risk: 7, weight: 1, target: isWs,
    description: 'Учётные данные сотрудника найдены в публичной базе утечек.', solution: 'Сбросить пароль, включить второй фактор, проверить входы.' },
  { title: 'Потеря ноутбука сотрудника', type: 'manual', category: 'Ручная регистрация', source: 'manual_source', risk: 6, weight: 0.5, target: isWs,
    description: 'Сотрудник сообщил об утрате служебного ноутбука.', solution: 'Заблокировать учётную запись и сертификаты, удалённо стереть данные.' },
  { title: 'Нарушение политики использования USB-носителей', type: 'manual', category: 'Ручная регистрация', source: 'manual_source', risk: 3.5, weight: 1.5, target: isWs,
    description: 'Подключение незарегистрированного съёмного носителя к АРМ.', solution: 'Провести беседу с пользователем, проверить носитель.' },
];

// ---------------------------------------------------------------- incidents

interface StatusStep {
  status: IncidentStatus;
  atUs: number;
  user: string | null;
}

interface IncidentSeed {
  id: string;
  finding: FindingSpec;
  findingId: string;
  asset: AssetSeed;
  createdUs: number;
  risklevel: number;
  history: StatusStep[];
  historyIds: string[];
  occurrenceList: { id: string; atUs: number; statusChangeId: string }[];
  srcIp: string;
  displayId: number;
}

type S = IncidentStatus;

/** Statuses by incident age: fresh incidents are mostly new, old ones mostly closed. */
function statusWeights(ageDays: number): readonly (readonly [S, number])[] {
  if (ageDays < 1) return [['new', 70], ['assigned_customer', 18], ['working_customer', 7], ['feedback_required', 3], ['invalid', 2]];
  if (ageDays < 7) return [['new', 28], ['assigned_customer', 20], ['working_customer', 16], ['feedback_required', 8], ['verify_close', 8], ['closed', 12], ['invalid', 6], ['risk_accepted', 2]];
  if (ageDays < 30) return [['new', 8], ['assigned_customer', 8], ['working_customer', 10], ['feedback_required', 6], ['verify_close', 9], ['risk_accepted', 6], ['closed', 41], ['invalid', 12]];
  return [['new', 2], ['assigned_customer', 3], ['working_customer', 4], ['feedback_required', 2], ['verify_close', 3], ['risk_accepted', 10], ['closed', 62], ['invalid', 14]];
}

/** A plausible route from `new` to the final status (may include one reopening). */
function statusPath(rng: Rng, final: S): S[] {
  switch (final) {
    case 'new':
      return ['new'];
    case 'assigned_customer':
      return rng.chance(0.08) ? ['new', 'closed', 'assigned_customer'] : ['new', 'assigned_customer'];
    case 'working_customer':
      if (rng.chance(0.08)) return ['new', 'assigned_customer', 'closed', 'working_customer'];
      return rng.chance(0.6) ? ['new', 'assigned_customer', 'working_customer'] : ['new', 'working_customer'];
    case 'feedback_required':
      return rng.chance(0.5) ? ['new', 'feedback_required'] : ['new', 'assigned_customer', 'feedback_required'];
    case 'verify_close':
      return rng.chance(0.5) ? ['new', 'working_customer', 'verify_close'] : ['new', 'assigned_customer', 'working_customer', 'verify_close'];
    case 'risk_accepted':
      return rng.chance(0.6) ? ['new', 'risk_accepted'] : ['new', 'assigned_customer', 'risk_accepted'];
    case 'closed':
      return rng.weighted<S[]>([
        [['new', 'closed'], 62],
        [['new', 'assigned_customer', 'closed'], 14],
        [['new', 'working_customer', 'verify_close', 'closed'], 12],
        [['new', 'assigned_customer', 'working_customer', 'verify_close', 'closed'], 5],
        [['new', 'closed', 'assigned_customer', 'closed'], 7],
      ]);
    case 'invalid':
      return ['new', 'invalid'];
  }
}

const isCustomerStatus = (s: S) => s === 'working_customer' || s === 'verify_close' || s === 'risk_accepted';

// ---------------------------------------------------------------- correlation content

function expressionFor(value: string | number | readonly string[]): Record<string, unknown> {
  if (typeof value === 'number') return { type: 'const-integer', value };
  if (typeof value === 'string') return { type: 'const-string', value };
  return { type: 'const-string-array', value: [...value] };
}

function conditionFor(rng: Rng, c: Cond, parentId: string | null): Record<string, unknown> {
  return {
    id: rng.uuid(),
    type: 'compare-condition',
    parentId,
    negation: false,
    compareFn: c[1],
    ignore_case: c[1] === 'like' || c[1] === 'regex',
    expressions: [{ type: 'logline-get', value: c[0] }, expressionFor(c[2])],
  };
}

const luaStr = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

function luaCondition(c: Cond): string {
  const get = `logline:gets(${luaStr(c[0])})`;
  const v = c[2];
  switch (c[1]) {
    case 'eq':
      return `${get} == ${luaStr(String(v))}`;
    case 'in': {
      const list = typeof v === 'object' ? v : [String(v)];
      if (list.length === 1 && list[0]!.startsWith('store:')) return `common.in_store(${luaStr(list[0]!.slice(6))}, ${get})`;
      return `common.in_list(${get}, { ${list.map(luaStr).join(', ')} })`;
    }
    case 'gt':
      return `(tonumber(${get}) or 0) > ${Number(v)}`;
    case 'regex':
      return `common.match(${get}, [[${String(v)}]])`;
    case 'like':
      return `string.find(${get} or "", ${luaStr(String(v))}, 1, true) ~= nil`;
  }
}

function ruleLua(f: FindingSpec, r: RuleSpec): string {
  const unique = r.unique ? `{ ${luaStr(r.unique)} }` : '{}';
  const threshold = r.unique ? 'grouped.aggregatedData.unique.total' : 'grouped.aggregatedData.total';
  return [
    `-- ${f.title}`,
    `-- ${f.mitre ? `MITRE ATT&CK ${f.mitre}; ` : ''}окно ${r.windowSec} с, порог ${r.count}`,
    'local common = require("common")',
    '',
    `local grouper1 = grouper.new({ ${r.groupBy.map(luaStr).join(', ')} }, ${unique}, "@timestamp", "${r.windowSec}s", function(grouped)`,
    `  if ${threshold} >= ${r.count} then`,
    '    alert({',
    `      template = ${luaStr(r.template)},`,
    `      risk_level = ${f.risk},`,
    '      asset_ip = grouped.aggregatedData.aggregated.first:get_asset_data("dst.ip"),',
    '      asset_hostname = grouped.aggregatedData.aggregated.first:get_asset_data("dst.host"),',
    '      create_incident = true,',
    '    })',
    '    return true',
    '  end',
    '  return false',
    'end)',
    '',
    'function on_logline(logline)',
    `  if ${r.conds.map(luaCondition).join('\n    and ')} then`,
    '    grouper1:feed(logline)',
    '  end',
    'end',
    '',
  ].join('\n');
}

/** A sample logline satisfying the rule's conditions, on the given hosts. */
function sampleEvent(r: RuleSpec, atUs: number, srcIp: string, asset: AssetSeed, user: string): Record<string, unknown> {
  const ev: Record<string, unknown> = {
    '@timestamp': ts(atUs),
    'src.ip': srcIp,
    'dst.ip': asset.ip,
    'dst.host': asset.host,
    'user.name': user,
  };
  for (const [field, fn, value, sample] of r.conds) {
    if (sample !== undefined) ev[field] = sample;
    else if (fn === 'gt') ev[field] = Number(value) * 2;
    else if (typeof value === 'object') ev[field] = value[0]!.startsWith('store:') ? '198.51.100.23' : value[0];
    else ev[field] = fn === 'like' ? `${value}01` : value;
  }
  return ev;
}

// ---------------------------------------------------------------- the seeder

const ATTACKERS = ['203.0.113.45', '203.0.113.118', '198.51.100.23', '198.51.100.77', '192.0.2.14', '192.0.2.201'];
const INTERNAL_SCANNERS = ['10.10.30.15', '10.10.30.16'];

const OUI: Record<HwClass, readonly string[]> = {
  phys: ['18:66:da', '94:40:c9', 'b8:59:9f'],
  vm: ['00:50:56'],
  ws: ['54:ee:75', '3c:52:82', 'e4:54:e8'],
  net: ['00:1b:54', '00:e0:4c'],
  printer: ['3c:d9:2b'],
};

class Seeder {
  private readonly ids = new Rng('ids');
  private readonly users: User[];
  private readonly groupIds = new Map<GroupKey, string>();
  private readonly swGroupIds = new Map<SwGroupKey, string>();
  private readonly softwareIds = new Map<string, string>();
  private readonly findingIds = new Map<FindingSpec, string>();
  private readonly assets: AssetSeed[] = [];
  private readonly assetGroups: { id: string; name: string }[] = [];
  private readonly incidents: IncidentSeed[] = [];
  private readonly ruleSetIds = new Map<string, string>();
  private readonly valueStoreIds = new Map<string, string>();
  private readonly filterIds = new Map<string, string>();
  private readonly moduleIds = new Map<string, string>();
  private readonly ruleIds = new Map<FindingSpec, string>();
  private readonly scriptIds = new Map<string, string>();
  private readonly inputSourceIds: string[] = [];
  private readonly hostCounters = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly scale: number,
  ) {
    const rng = new Rng('users');
    this.users = USER_NAMES.map(([name, login, team]) => ({ id: rng.uuid(), name, login, team }));
    // The first SOC analyst is the local analyst: the console's own user (LOCAL_USER_ID).
    this.users[0]!.id = LOCAL_USER_ID;
  }

  private res(name: string): ResourceDef {
    return getResource(name);
  }

  /** Creates a record with a seeded id at the given instant; answers its id. */
  /** Creates a record through the write path; serverSet: read-only fields the platform would have set. */
  private make(resource: string, body: WriteBody, atUs: number, serverSet?: Record<string, unknown>): string {
    const id = body.id ?? this.ids.uuid();
    this.store.create(this.res(resource), { ...body, id }, { at: ts(atUs), source: 'seed', serverSet });
    return id;
  }

  private soc(rng: Rng): User {
    return rng.pick(this.users.filter((u) => u.team === 'soc'));
  }

  private customer(rng: Rng): User {
    return rng.pick(this.users.filter((u) => u.team === 'customer'));
  }

  private scaled(n: number, min: number): number {
    return Math.max(min, Math.round(n * this.scale));
  }

  run(): void {
    this.people();
    this.responsibleGroups();
    this.softwareGroups();
    this.softwareRows();
    this.findingRows();
    this.serviceAssets();
    this.serviceAssetGroups();
    this.networkInterfaces();
    this.hardware();
    this.vulnerabilityHosts();
    this.serviceAssetFindings();
    this.statusChanges();
    this.occurrenceRows();
    this.vulnerabilityRows();
    this.messageRows();
    this.customFields();
    this.correlationContent();
    this.engineGoRules();
    this.engineGoResults();
    this.complianceRules();
    this.integrations();
    this.inputSources();
    this.agentRows();
    this.finishIncidents();
  }

  // ---- organisation and software

  /** The people directory: names for the user uuids of the records. */
  private people(): void {
    const at = ts(ANCHOR_US - 160 * DAY_US);
    for (const u of this.users) {
      const m = /^(.*?)(?: \((.*)\))?$/.exec(u.name)!;
      const name = m[1]!;
      this.store.run(`INSERT INTO console_people (id, name, short_name, login, email, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
        u.id,
        name,
        shortNameOf(name),
        u.login,
        `${u.login}@${u.team === 'soc' ? 'soc.provider.ru' : 'corp.local'}`,
        m[2] ?? (u.team === 'customer' ? 'Заказчик' : null),
        at,
        at,
      ]);
    }
  }

  private responsibleGroups(): void {
    const rng = new Rng(K.responsibleGroup);
    for (const g of RESPONSIBLE_GROUPS) {
      const members = rng.sample(this.users, rng.int(2, 5));
      const team = g.key === 'sec' || g.key === 'soc' || g.key === 'ir' ? 'soc' : 'customer';
      const leader = rng.pick(this.users.filter((u) => u.team === team));
      const id = this.make(
        K.responsibleGroup,
        {
          name: g.name,
          parent_group: g.parent ? this.groupIds.get(g.parent)! : null,
          realm_id: 'corp',
          email: g.email,
          phone_number: g.phone,
          leader_id: leader.id,
          accept_risk: g.acceptRisk ?? false,
          visible_scan_schedules: g.key === 'sec' || g.key === 'srv',
          stop_scans: g.key === 'sec',
          edited_by: 'a.zakharova',
          // The local analyst works the SOC shift ("my group" in the console).
          user_ids: [...new Set([leader.id, ...members.map((u) => u.id), ...(g.key === 'soc' ? [LOCAL_USER_ID] : [])])],
        },
        ANCHOR_US - 150 * DAY_US + rng.int(0, 5 * 24 * 60) * MIN_US,
      );
      this.groupIds.set(g.key, id);
    }
  }

  private softwareGroups(): void {
    const rng = new Rng(K.softwareGroup);
    for (const g of SOFTWARE_GROUPS) {
      const id = this.make(
        K.softwareGroup,
        { name: g.name, description: g.description, parent_id: g.parent ? this.swGroupIds.get(g.parent)! : null },
        ANCHOR_US - 140 * DAY_US + rng.int(0, 3 * 24 * 60) * MIN_US,
      );
      this.swGroupIds.set(g.key, id);
    }
  }

  private softwareRows(): void {
    const rng = new Rng(K.softwareItem);
    for (const s of SOFTWARE) {
      const id = this.make(
        K.softwareItem,
        {
          name: s.name,
          raw_output_line: s.raw,
          version: s.version,
          release: s.release || null,
          os: s.os,
          display_name: s.display,
          description: s.description,
          software_group_id: this.swGroupIds.get(s.group)!,
          tsvector: tsvectorOf(`${s.name} ${s.display}`),
        },
        ANCHOR_US - (HISTORY_DAYS + 10) * DAY_US + rng.int(0, 10 * 24 * 60) * MIN_US + rng.int(0, 59_999_999),
      );
      this.softwareIds.set(s.key, id);
    }
  }

  private findingRows(): void {
    const rng = new Rng(K.finding);
    for (const f of FINDINGS) {
      const [impact, mitigation] = IMPACT[f.type]!;
      const system = f.source !== 'manual_source' && rng.chance(0.7);
      const id = this.make(
        K.finding,
        {
          title: f.title,
          description: f.description,
          risk_impact: impact,
          solution: f.solution,
          mitigation,
          synopsis: f.description.split('.')[0]!,
          comment: f.mitre ? `MITRE ATT&CK: ${f.mitre}` : null,
          client_note: rng.chance(0.3) ? 'При срабатывании свяжитесь с дежурной сменой SOC: +7 (495) 640-13-13.' : null,
          internal_note: rng.chance(0.3) ? 'Порог подобран по статистике за 30 дней, пересмотреть в следующем квартале.' : null,
          local: !system,
          new_version: system && rng.chance(0.15),
          customer_created: f.source === 'manual_source' && rng.chance(0.5),
          software_compliance: f.source === 'software_compliance_source',
          type: f.type,
          identifier: f.identifier ?? {},
          fallback_raw_risklevel: f.risk,
          cpes: [...(f.cpes ?? [])],
          category_id: CATEGORY_IDS[f.type]!,
          category: f.category,
          is_system: system,
          updated_by: system ? null : 'a.zakharova',
          created_by_customer: null,
          edited_by: system ? null : rng.pick(['a.zakharova', 'm.nikitina', 'p.gusev']),
          itsm_last_synced_at: null,
        },
        ANCHOR_US - (HISTORY_DAYS + 5) * DAY_US + rng.int(0, 5 * 24 * 60) * MIN_US + rng.int(0, 59_999_999),
      );
      this.findingIds.set(f, id);
    }
  }

  // ---- assets

  private nextIp(zone: ZoneKey): string {
    const n = this.hostCounters.get(zone) ?? 0;
    this.hostCounters.set(zone, n + 1);
    const [a, b, c] = ZONES[zone].net;
    return `${a}.${b}.${c + Math.floor(n / 200)}.${(zone === 'msk' || zone === 'spb' || zone === 'ekb' || zone === 'nsk' ? 50 : 11) + (n % 200)}`;
  }

  /** Role counts for the requested total, in proportion to the role sizes at scale 1. */
  private roleCounts(total: number): number[] {
    const base = ROLES.reduce((s, r) => s + r.count, 0);
    const exact = ROLES.map((r) => (r.count * total) / base);
    const counts = exact.map(Math.floor);
    let left = total - counts.reduce((s, n) => s + n, 0);
    const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((p, q2) => q2[0] - p[0] || p[1] - q2[1]);
    for (const [, i] of order) {
      if (left-- <= 0) break;
      counts[i]!++;
    }
    return counts;
  }

  private serviceAssets(): void {
    const rng = new Rng(K.serviceAsset);
    const total = this.scaled(60, 8);
    const counts = this.roleCounts(total);
    let employee = 0;
    ROLES.forEach((role, ri) => {
      for (let n = 1; n <= counts[ri]!; n++) {
        const host = `${role.prefix}-${String(n).padStart(2, '0')}`;
        const zone = rng.weighted(role.zones);
        const title = role.titles[(n - 1) % role.titles.length]!;
        const owner = role.kind === 'workstation' ? EMPLOYEES[employee++ % EMPLOYEES.length]! : null;
        const name = owner ? `${host} (${title}, ${owner})` : `${host} (${title})`;
        const os = rng.pick(role.os);
        const sw = new Set<string>();
        for (const item of role.sw) {
          let key: string | null;
          if (typeof item === 'string') key = item;
          else key = rng.chance(item[1]) ? item[0] : null;
          if (key === null) continue;
          if (key.includes('|')) key = rng.pick(key.split('|'));
          if (key === 'openssh') key = os.startsWith('Astra') ? 'openssh-a' : os.startsWith('Debian') ? 'openssh-d' : os.startsWith('РЕД') ? 'openssh-r' : 'openssh-u';
          if (key === 'pg') key = os.startsWith('Astra') ? 'pgpro15' : 'pg14';
          sw.add(key);
        }
        const group: GroupKey = role.group === 'helpdesk' && zone !== 'msk' ? 'branches' : role.group;
        const g = RESPONSIBLE_GROUPS.find((x) => x.key === group)!;
        const createdUs =
          role.kind === 'workstation' && rng.chance(0.25)
            ? ANCHOR_US - rng.int(5, 100) * DAY_US + rng.int(0, 86_399) * SEC_US + rng.int(0, 999_999)
            : ANCHOR_US - rng.int(HISTORY_DAYS + 1, HISTORY_DAYS + 14) * DAY_US + rng.int(0, 86_399) * SEC_US + rng.int(0, 999_999);
        const a: AssetSeed = {
          id: this.ids.uuid(),
          host,
          name,
          role: role.key,
          family: role.family,
          kind: role.kind,
          zone,
          ip: this.nextIp(zone),
          mac: `${rng.pick(OUI[role.hw])}:${rng.hex(1)}:${rng.hex(1)}:${rng.hex(1)}`,
          fqdn: `${host}.corp.local`,
          os,
          sw,
          group,
          value: role.value,
          createdUs,
          assetGroupIds: [],
        };
        this.make(
          K.serviceAsset,
          {
            id: a.id,
            trace_id: rng.uuid(),
            type: role.type,
            name,
            description: owner ? `${title}. Пользователь: ${owner}. ${os}.` : `${title}. ${os}.`,
            coordinates: '--- []',
            active: !(role.kind === 'workstation' && rng.chance(0.05)),
            scan_id: rng.chance(0.6) ? `scan-${dateOf(createdUs)}-${rng.int(100, 999)}` : null,
            value: role.value,
            client_note: role.value === 1 ? 'Критичный для бизнеса узел: работы только в согласованное окно.' : null,
            internal_note: rng.chance(0.15) ? 'Уточнить владельца при следующей инвентаризации.' : null,
            location: ZONES[zone].location,
            network_exposure: role.exposure,
            responsible_person: owner ?? g.people[0],
            technical_specialist: g.people[1],
            responsible_group_id: this.groupIds.get(group)!,
            edited_by: rng.chance(0.3) ? rng.pick(['ds.kuznetsov', 'np.volkova', 'ia.morozov']) : null,
            _relations: { [K.softwareItem]: [...sw].map((k) => this.softwareIds.get(k)!) },
          },
          createdUs,
        );
        this.assets.push(a);
      }
    });
  }

  private serviceAssetGroups(): void {
    const rng = new Rng(K.serviceAssetGroup);
    const inNet = (ip: string, cidr: string): boolean => {
      const [net, bits] = cidr.split('/');
      const toInt = (s: string) => s.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
      const size = 2 ** (32 - Number(bits));
      return Math.floor(toInt(ip) / size) === Math.floor(toInt(net!) / size);
    };
    const defs: readonly {
      name: string;
      ranges?: readonly string[];
      domain?: string;
      regex?: string;
      kii?: boolean;
      fincert?: boolean;
      group: GroupKey;
      member?: (a: AssetSeed) => boolean;
    }[] = [
      { name: 'Серверы ЦОД-1', ranges: ['10.10.0.0/16'], group: 'srv' },
      { name: 'Серверы ЦОД-2 (резервная площадка)', ranges: ['10.20.0.0/16'], group: 'srv' },
      { name: 'DMZ', ranges: ['10.0.100.0/22'], group: 'net' },
      { name: 'Рабочие станции: Москва', ranges: ['192.168.0.0/20'], group: 'helpdesk' },
      { name: 'Рабочие станции: филиалы', ranges: ['192.168.16.0/20', '192.168.32.0/20', '192.168.48.0/20'], group: 'branches' },
      { name: 'Контроллеры домена', regex: '^dc-\\d+', domain: 'corp.local', group: 'srv' },
      { name: 'Периметр', regex: '^(fw|vpn-gw|proxy|web|mail)-\\d+', group: 'net' },
      { name: 'Финансовые системы (ФинЦЕРТ)', fincert: true, group: 'sec', member: isRole('db', '1c', 'ws-buh') },
      { name: 'Объекты КИИ: ИС бухгалтерского учёта', kii: true, group: 'sec', member: isRole('db', '1c', 'dc') },
      { name: 'Linux-серверы', domain: 'corp.local', group: 'srv', member: isLinuxSrv },
      { name: 'Тестовые стенды', regex: '^test-srv-\\d+', group: 'srv' },
    ];
    for (const d of defs) {
      const members = this.assets.filter(
        (a) =>
          (d.member?.(a) ?? false) ||
          (d.ranges ?? []).some((r) => inNet(a.ip, r)) ||
          (d.regex !== undefined && d.member === undefined && new RegExp(d.regex).test(a.host)),
      );
      const g = RESPONSIBLE_GROUPS.find((x) => x.key === d.group)!;
      const id = this.make(
        K.serviceAssetGroup,
        {
          name: d.name,
          network_ranges: [...(d.ranges ?? [])],
          domain: d.domain ?? null,
          itsm_synced: rng.chance(0.3),
          regex: d.regex ?? null,
          subject_id: d.kii ? 'ОГРН 1027700000000' : null,
          object_id: d.kii ? 'КИИ-77-000123' : null,
          is_kii: d.kii ?? false,
          is_fincert: d.fincert ?? false,
          responsible_person: g.people[0],
          technical_specialist: g.people[1],
          system_id: d.kii ? 'ИС-БУ-01' : null,
          responsible_group_id: this.groupIds.get(d.group)!,
          edited_by: 'a.zakharova',
          _relations: { [K.serviceAsset]: members.map((a) => a.id) },
        },
        ANCHOR_US - (HISTORY_DAYS - 2) * DAY_US + rng.int(0, 3 * 24 * 60) * MIN_US,
      );
      for (const a of members) a.assetGroupIds.push(id);
      this.assetGroups.push({ id, name: d.name });
    }
  }

  private networkInterfaces(): void {
    const rng = new Rng(K.networkInterface);
    for (const a of this.assets) {
      const ifName = a.family === 'windows' ? 'Ethernet0' : a.family === 'netdev' ? 'port1' : a.os.startsWith('Ubuntu') ? 'ens192' : 'eth0';
      this.make(
        K.networkInterface,
        { name: ifName, ip: a.ip, mac: a.mac, fqdn: a.fqdn, os: a.os, service_asset_id: a.id, edited_by: null },
        a.createdUs + rng.int(1, 600) * SEC_US,
      );
      if (a.kind === 'server' && rng.chance(0.3)) {
        const octets = a.ip.split('.');
        this.make(
          K.networkInterface,
          {
            name: a.family === 'windows' ? 'Ethernet1 (Backup)' : 'ens224',
            ip: `10.99.${octets[2]}.${octets[3]}`,
            mac: `${a.mac.slice(0, 9)}${rng.hex(1)}:${rng.hex(1)}:${rng.hex(1)}`,
            fqdn: `${a.host}-bk.corp.local`,
            os: a.os,
            service_asset_id: a.id,
            edited_by: 'ds.kuznetsov',
          },
          a.createdUs + rng.int(601, 7200) * SEC_US,
        );
      }
    }
    // An address seen by a scan but not matched to any asset yet.
    this.make(K.networkInterface, { name: null, ip: '192.168.1.240', mac: `3c:d9:2b:${rng.hex(1)}:${rng.hex(1)}:${rng.hex(1)}`, fqdn: null, os: 'Linux 3.x (embedded)' }, ANCHOR_US - 9 * DAY_US);
  }

  private hardware(): void {
    const rng = new Rng(K.hardwareInformation);
    const CATALOG: Record<HwClass, readonly (readonly [type: string, name: string, manufacturer: string])[][]> = {
      phys: [
        [['platform', 'PowerEdge R740', 'Dell Inc.'], ['platform', 'ProLiant DL380 Gen10', 'HPE'], ['platform', 'Vegman R220 G2', 'YADRO']],
        [['cpu', 'Intel Xeon Gold 6230R @ 2.10GHz (2 x 26 ядер)', 'Intel'], ['cpu', 'Intel Xeon Silver 4314 @ 2.40GHz (2 x 16 ядер)', 'Intel']],
        [['memory', 'DDR4 ECC RDIMM 32 ГБ x 12', 'Samsung'], ['memory', 'DDR4 ECC RDIMM 64 ГБ x 8', 'Micron']],
        [['storage', 'SSD SAS 1.92 ТБ x 6 (RAID 10)', 'Samsung'], ['storage', 'HDD SAS 2.4 ТБ x 8 (RAID 6)', 'Seagate']],
      ],
      vm: [[['platform', 'VMware Virtual Platform (vCPU x 8, vRAM 32 ГБ)', 'VMware, Inc.'], ['platform', 'VMware Virtual Platform (vCPU x 4, vRAM 16 ГБ)', 'VMware, Inc.']]],
      ws: [
        [['platform', 'ThinkCentre M70s Gen 3 (Core i5-12400, 16 ГБ)', 'Lenovo'], ['platform', 'Aquarius Pro P30 K43 (Core i5-10400, 8 ГБ)', 'Аквариус'], ['platform', 'HP ProDesk 400 G7 (Core i5-10500, 16 ГБ)', 'HP Inc.']],
        [['storage', 'SSD NVMe 512 ГБ', 'Samsung'], ['storage', 'SSD SATA 256 ГБ', 'Kingston']],
      ],
      net: [[['platform', 'UserGate E1000', 'UserGate'], ['platform', 'ViPNet Coordinator HW2000', 'ИнфоТеКС']], [['network', 'SFP+ 10GBase-SR x 4', 'Finisar']]],
      printer: [[['platform', 'HP LaserJet Pro MFP M428fdn', 'HP Inc.']]],
    };
    for (const a of this.assets) {
      const role = ROLES.find((r) => r.key === a.role)!;
      for (const options of CATALOG[role.hw]) {
        const [type, name, manufacturer] = rng.pick(options);
        const old = type === 'storage' && rng.chance(0.1);
        this.make(
          K.hardwareInformation,
          {
            hardware_type: type,
            name,
            manufacturer,
            serial_number: type === 'platform' || type === 'storage' ? `${rng.alnum(3)}${rng.int(1000000, 9999999)}` : null,
            additional_info: type === 'platform' ? `Инвентарный № ${rng.int(10000, 99999)}` : null,
            is_old: old,
            service_asset_id: a.id,
          },
          a.createdUs + rng.int(600, 3 * 86_400) * SEC_US,
        );
      }
    }
  }

  // ---- scans

  private readonly hostScans: { id: string; asset: AssetSeed; endUs: number; scanId: string; authenticated: boolean }[] = [];

  private vulnerabilityHosts(): void {
    const rng = new Rng(K.vulnerabilityHost);
    const scans = [0, 1, 2].map((i) => ({ scanId: `MP8-${2026}-${String(410 + i * 7)}`, startUs: ANCHOR_US - (75 - i * 30) * DAY_US + 22 * HOUR_US }));
    const scanned = this.assets.filter((a) => (a.kind === 'server' ? rng.chance(0.7) : a.kind === 'workstation' ? rng.chance(0.15) : rng.chance(0.5)));
    if (!scanned.length) scanned.push(this.assets[0]!);
    for (const a of scanned) {
      const picked = rng.chance(0.3) ? scans.slice(1) : scans.slice(2);
      for (const s of picked) {
        const beginUs = s.startUs + rng.int(0, 4 * 3600) * SEC_US + rng.int(0, 999_999);
        const endUs = beginUs + rng.int(3 * 60, 50 * 60) * SEC_US + rng.int(0, 999_999);
        const auth = a.family !== 'netdev' && rng.chance(0.8);
        const id = this.make(
          K.vulnerabilityHost,
          {
            ip: a.ip,
            mac: a.mac,
            fqdn: a.fqdn,
            properties: { scanner: 'MaxPatrol 8', profile: auth ? 'Audit (SSH/WMI)' : 'Pentest', open_ports: a.family === 'windows' ? [135, 445, 3389] : a.family === 'linux' ? [22] : [443] },
            scan_begin: ts(beginUs),
            scan_end: ts(endUs),
            service_asset_id: a.id,
            vulnerability_scan_id: s.scanId,
            os: a.os,
            authenticated: auth,
            scan_error: auth || a.family === 'netdev' ? null : 'Authentication failed: access denied for scanner account',
            name: a.host,
            authentication_info: auth ? { method: a.family === 'windows' ? 'wmi' : 'ssh-key', user: 'svc_scanner', success: true } : { method: 'none', success: false },
          },
          endUs,
        );
        this.hostScans.push({ id, asset: a, endUs, scanId: s.scanId, authenticated: auth });
      }
    }
  }

  // ---- incidents

  private serviceAssetFindings(): void {
    const rng = new Rng(K.incident);
    const total = this.scaled(400, 16);
    const byFinding = new Map<FindingSpec, AssetSeed[]>();
    for (const f of FINDINGS) {
      const cands = this.assets.filter(f.target);
      byFinding.set(f, rng.shuffle(cands.length ? cands : this.assets));
    }
    const weights = FINDINGS.map((f) => [f, f.weight] as const);
    const specs: Omit<IncidentSeed, 'id' | 'findingId' | 'historyIds' | 'occurrenceList' | 'displayId'>[] = [];
    for (let i = 0; i < total; i++) {
      const f = rng.weighted(weights);
      const cands = byFinding.get(f)!;
      // A few noisy assets collect most incidents of a kind.
      const asset = cands[Math.floor(rng.next() * rng.next() * cands.length)]!;
      const u = rng.next();
      const ageUs = Math.floor(u * u * (HISTORY_DAYS - 1) * DAY_US) + rng.int(5, 120) * MIN_US + rng.int(0, 999_999);
      const createdUs = Math.max(ANCHOR_US - ageUs, asset.createdUs + HOUR_US);
      const risklevel = Math.min(10, Math.max(0, Math.round((f.risk + (rng.next() - 0.5) * 2 + (asset.value === 1 ? 0.5 : 0)) * 10) / 10));
      specs.push({ finding: f, asset, createdUs, risklevel: rng.chance(0.02) ? 0 : risklevel, history: [], srcIp: '' });
    }
    // Every status should appear: give missing ones to incidents old enough to have moved on.
    const finals = specs.map((s) => rng.weighted(statusWeights((ANCHOR_US - s.createdUs) / DAY_US)));
    const oldest = specs.map((s, i) => [s.createdUs, i] as const).sort((p, q2) => p[0] - q2[0] || p[1] - q2[1]);
    let k = 0;
    for (const status of ['new', 'assigned_customer', 'working_customer', 'feedback_required', 'verify_close', 'risk_accepted', 'closed', 'invalid'] as const) {
      if (!finals.includes(status)) finals[oldest[k++ % oldest.length]![1]] = status;
    }
    specs.forEach((s, i) => {
      s.history = this.history(rng, s.createdUs, finals[i]!, s.finding);
      s.srcIp = s.finding.source === 'engine_go_result' && ['bruteforce', 'network_anomaly', 'web_attack'].includes(s.finding.type) && s.asset.zone === 'dmz'
        ? rng.pick(ATTACKERS)
        : s.finding.type === 'network_anomaly' && rng.chance(0.3)
          ? rng.pick(INTERNAL_SCANNERS)
          : rng.pick(this.assets).ip;
    });
    const order = specs.map((s, i) => [s.createdUs, i] as const).sort((p, q2) => p[0] - q2[0] || p[1] - q2[1]);
    const I = this.res(K.incident);
    order.forEach(([, i], n) => {
      const s = specs[i]!;
      const f = s.finding;
      const findingId = this.findingIds.get(f)!;
      const h = s.history;
      const last = h[h.length - 1]!;
      const reopenings = h.filter((step, j) => j > 0 && FINAL_STATUSES.includes(h[j - 1]!.status) && OPEN_STATUSES.includes(step.status));
      const customerSteps = h.filter((step) => step.status.endsWith('_customer'));
      const manual = f.source === 'manual_source';
      const customerCreated = manual && rng.chance(0.4);
      const creator = manual ? (customerCreated ? this.customer(rng) : this.soc(rng)) : null;
      const ageDays = Math.floor((ANCHOR_US - s.createdUs) / DAY_US);
      const remote = !!f.remote && s.asset.kind !== 'workstation';
      const body: WriteBody = {
        id: this.ids.uuid(),
        trace_id: rng.uuid(),
        title: `${f.title} — ${s.asset.host}`,
        description: `${f.description} Узел: ${s.asset.fqdn} (${s.asset.ip}).`,
        risk_impact: IMPACT[f.type]![0],
        solution: f.solution,
        mitigation: IMPACT[f.type]![1],
        status: last.status,
        risklevel: s.risklevel,
        service_asset_id: s.asset.id,
        finding_id: findingId,
        analysis_output: this.analysisOutput(rng, f, s.asset, s.srcIp),
        synopsis: f.description.split('.')[0]!,
        acknowledged_at: h[1] ? ts(h[1].atUs) : null,
        acknowledged_by: h[1]?.user ?? null,
        alert_type: manual ? 'manual' : 'automatic',
        client_note: rng.chance(0.1) ? 'Просьба согласовывать блокировки с дежурным администратором.' : null,
        internal_note: rng.chance(0.15) ? rng.pick(['Похоже на активность пентестеров (договор № 14/26), уточнить.', 'Повторяется еженедельно, кандидат на исключение.', 'Эскалировано на L2.']) : null,
        external: f.source === 'vulnerability' && rng.chance(0.3),
        immediate_action_score: Math.round(s.risklevel * (6 - s.asset.value) * 2) / 10,
        throughput_period: last.status === 'new' ? (ageDays < 1 ? 'grace' : 'expired') : FINAL_STATUSES.includes(last.status) ? 'done' : 'in_time',
        throughput_period_change: ts(last.atUs),
        customer_created: customerCreated,
        c_visible_since: ts(s.createdUs),
        c_visible_since_in_days: ageDays,
        c_reopened_count: reopenings.length,
        c_last_customer_status_change: customerSteps.length ? ts(customerSteps[customerSteps.length - 1]!.atUs) : null,
        logmule_identifier: f.source === 'engine_go_result' ? `${rng.hex(8)}-${s.asset.host}` : null,
        c_remote_exploitable: remote,
        c_occurrence_count: 0,
        '\u0441_customer_retention_time': last.status.endsWith('_customer') || last.status === 'verify_close' ? Math.round((ANCHOR_US - last.atUs) / HOUR_US) : null,
        itsm_last_synced_at: null,
        itsm_sync_status: rng.pick(['not_synced', 'not_synced', 'scheduled']),
        external_id: rng.chance(0.2) ? rng.int(100000, 999999) : null,
        itsm_sync_error: null,
        user_id: this.ownerOf(h, creator),
        updated_by: h.length > 1 ? last.user : null,
        group_id: this.groupIds.get(this.groupOf(last.status, s.risklevel, s.asset.group))!,
        created_by_customer: customerCreated ? creator!.id : null,
        edited_by: h.length > 1 ? this.users.find((u2) => u2.id === last.user)?.login ?? null : null,
        incident_group_id: f.category,
        reopened_at: reopenings.length ? ts(reopenings[reopenings.length - 1]!.atUs) : null,
      };
      this.store.create(I, body, { at: ts(s.createdUs) });
      this.incidents.push({ ...s, id: body.id!, findingId, historyIds: [], occurrenceList: [], displayId: n + 1 });
    });
  }

  /** The analyst owning an incident: the first SOC analyst who handled it (or who registered
   * it by hand); nobody while it is new and untouched. */
  private ownerOf(h: StatusStep[], creator: User | null): string | null {
    const soc = new Set(this.users.filter((u) => u.team === 'soc').map((u) => u.id));
    const handler = h.slice(1).find((step) => step.user && soc.has(step.user));
    return handler?.user ?? (creator && creator.team === 'soc' ? creator.id : null);
  }

  /** The responsible group: the customer's team owning the asset while the incident is with the
   * customer, else the SOC shift (new and minor closed ones) or incident response (high risk). */
  private groupOf(status: S, risklevel: number, assetGroup: GroupKey): GroupKey {
    if (status === 'assigned_customer' || status === 'working_customer' || status === 'feedback_required' || status === 'verify_close') return assetGroup;
    if (status === 'new') return 'soc';
    return risklevel >= 7 ? 'ir' : 'soc';
  }

  private analysisOutput(rng: Rng, f: FindingSpec, a: AssetSeed, src: string): string {
    switch (f.source) {
      case 'engine_go_result':
        return `Правило «${f.title}»: источник ${src}, узел ${a.host} (${a.ip}), событий в окне: ${rng.int(f.rule?.count ?? 1, (f.rule?.count ?? 1) * 3)}.`;
      case 'vulnerability':
        return `MaxPatrol 8: уязвимость подтверждена на ${a.ip}${f.port ? `:${f.port}/tcp` : ''}.`;
      case 'software_compliance_source':
        return `Инвентаризация ПО ${a.host}: нарушено правило соответствия.`;
      case 'watchdog_result':
        return `Watchdog: ${a.host} — последнее событие ${rng.int(31, 240)} мин назад.`;
      case 'manual_source':
        return 'Зарегистрировано вручную по обращению.';
    }
  }

  /** Status history: `new` at creation, then each step later by minutes to days, all before the anchor. */
  private history(rng: Rng, createdUs: number, final: S, f: FindingSpec): StatusStep[] {
    const path = statusPath(rng, final);
    const gaps = path.slice(1).map((_, j) => (j === 0 ? rng.int(5, 8 * 60) * MIN_US : rng.int(1, 5 * 24) * HOUR_US) + rng.int(0, 59_999_999));
    const room = ANCHOR_US - MIN_US - createdUs;
    const sum = gaps.reduce((s, g) => s + g, 0);
    const factor = sum > room ? room / sum : 1;
    const steps: StatusStep[] = [{ status: 'new', atUs: createdUs, user: f.source === 'manual_source' ? this.soc(rng).id : null }];
    let t = createdUs;
    for (let j = 1; j < path.length; j++) {
      t = Math.max(t + 1, t + Math.floor(gaps[j - 1]! * factor));
      const status = path[j]!;
      steps.push({ status, atUs: t, user: (isCustomerStatus(status) ? this.customer(rng) : this.soc(rng)).id });
    }
    return steps;
  }

  /** Replaces the rows written by the store's create hook with the full, seeded history. */
  private statusChanges(): void {
    const rng = new Rng(K.statusChange);
    this.store.run(
      `DELETE FROM ${K.statusChange} WHERE service_asset_finding_id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(this.incidents.map((i) => i.id))],
    );
    for (const inc of this.incidents) {
      inc.history.forEach((step, j) => {
        const id = this.make(
          K.statusChange,
          {
            service_asset_finding_id: inc.id,
            status: step.status,
            previous_status: j > 0 ? inc.history[j - 1]!.status : null,
            revisit_at: step.status === 'risk_accepted' ? ts(step.atUs + 90 * DAY_US) : null,
            itsm_sync_status: j > 0 && rng.chance(0.3) ? 'synced' : null,
            itsm_last_synced_at: null,
            itsm_sync_error: null,
            user_id: step.user,
          },
          step.atUs,
        );
        inc.historyIds.push(id);
      });
    }
  }

  private occurrenceRows(): void {
    const rng = new Rng(K.occurrence);
    for (const inc of this.incidents) {
      const last = inc.history[inc.history.length - 1]!;
      const endUs = FINAL_STATUSES.includes(last.status) ? last.atUs : ANCHOR_US - MIN_US;
      let extra = 0;
      const pRepeat = inc.finding.type === 'bruteforce' || inc.finding.type === 'network_anomaly' ? 0.62 : inc.finding.source === 'manual_source' ? 0.15 : 0.45;
      while (extra < 14 && rng.chance(pRepeat)) extra++;
      const times = [inc.createdUs];
      for (let j = 0; j < extra; j++) times.push(inc.createdUs + Math.floor(rng.next() * Math.max(0, endUs - inc.createdUs)));
      times.sort((x, y) => x - y);
      const port = inc.finding.port ?? null;
      for (const atUs of times) {
        let sc = 0;
        for (let j = 0; j < inc.history.length; j++) if (inc.history[j]!.atUs <= atUs) sc = j;
        const statusChangeId = inc.historyIds[sc]!;
        const fincert = inc.asset.assetGroupIds.length > 0 && inc.asset.role === 'ws-buh' && inc.risklevel >= 7;
        const id = this.make(
          K.occurrence,
          {
            event_type: inc.finding.source,
            ip: inc.asset.ip,
            mac: inc.asset.mac,
            fqdn: inc.asset.fqdn,
            port,
            start_occurrence: ts(atUs),
            end_occurrence: ts(past(atUs + rng.int(1, 900) * SEC_US)),
            service_asset_finding_status_change_id: statusChangeId,
            service_asset_finding_id: inc.id,
            incident_identifier: rng.chance(0.1) ? `SD-2026-${String(rng.int(1000, 99999)).padStart(6, '0')}` : null,
            fincert_sync_status: fincert ? 2 : null,
            fincert_id: fincert ? `FINCERT-${rng.int(100000, 999999)}` : null,
            sopka_sync_status: inc.finding.risk >= 9 ? rng.pick([0, 1, 2]) : null,
            sopka_id: inc.finding.risk >= 9 ? `ГосСОПКА-${rng.int(10000, 99999)}` : null,
            fincert_sync_result: fincert ? 'accepted' : null,
            sopka_sync_result: inc.finding.risk >= 9 ? 'queued' : null,
          },
          atUs,
        );
        inc.occurrenceList.push({ id, atUs, statusChangeId });
      }
    }
  }

  private vulnerabilityRows(): void {
    const rng = new Rng(K.vulnerability);
    type Vuln = { pluginId: string; name: string; severity: number; port: number; cvss: string; score: string; risk: string; synopsis: string; solution: string; published: string; finding?: string; applies: (a: AssetSeed) => boolean; remote: boolean; exploitable: boolean };
    const CATALOG: readonly Vuln[] = [
      { pluginId: '201194', name: 'OpenSSH < 9.8 RCE (regreSSHion)', severity: 3, port: 22, cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H', score: '8.1', risk: 'High', synopsis: 'The SSH server is affected by a remote code execution vulnerability.', solution: 'Upgrade to OpenSSH 9.8 or later.', published: '2024-07-01', finding: 'Уязвимость OpenSSH regreSSHion (CVE-2024-6387)', applies: hasSw('openssh-u', 'openssh-d', 'openssh-r'), remote: true, exploitable: true },
      { pluginId: '183390', name: 'nginx HTTP/2 Rapid Reset DoS (CVE-2023-44487)', severity: 3, port: 443, cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', score: '7.5', risk: 'High', synopsis: 'The remote web server is affected by a denial of service vulnerability.', solution: 'Upgrade nginx.', published: '2023-10-10', finding: 'nginx HTTP/2 Rapid Reset (CVE-2023-44487)', applies: hasSw('nginx-u', 'nginx-org'), remote: true, exploitable: true },
      { pluginId: '96982', name: 'Server Message Block (SMB) Protocol Version 1 Enabled', severity: 2, port: 445, cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', score: '5.9', risk: 'Medium', synopsis: 'The remote Windows host supports the SMBv1 protocol.', solution: 'Disable SMBv1.', published: '2017-02-03', finding: 'SMBv1 включён на узле', applies: isWinSrv, remote: true, exploitable: false },
      { pluginId: '205260', name: 'PostgreSQL 12.x < 12.20 / 13.x < 13.16 / 14.x < 14.13 / 15.x < 15.8 / 16.x < 16.4', severity: 2, port: 5432, cvss: 'CVSS:3.1/AV:N/AC:H/PR:L/UI:N/S:U/C:H/I:H/A:H', score: '7.5', risk: 'High', synopsis: 'The remote database server is affected by a SQL injection vulnerability.', solution: 'Upgrade PostgreSQL.', published: '2024-08-08', finding: 'Устаревшая версия PostgreSQL', applies: hasSw('pg14', 'pgpro15'), remote: false, exploitable: false },
      { pluginId: '57582', name: 'SSL Self-Signed Certificate', severity: 2, port: 443, cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N', score: '6.5', risk: 'Medium', synopsis: 'The SSL certificate chain for this service ends in an unrecognized self-signed certificate.', solution: 'Purchase or generate a proper SSL certificate.', published: '2012-01-17', finding: 'Self-signed TLS certificate', applies: isRole('web', 'mail', 'git', 'ksc', 'mon'), remote: true, exploitable: false },
      { pluginId: '156032', name: 'Apache Log4j Unsupported Version / RCE (Log4Shell)', severity: 4, port: 8080, cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', score: '10.0', risk: 'Critical', synopsis: 'A logging library on the remote host is affected by a remote code execution vulnerability.', solution: 'Upgrade to Apache Log4j 2.17.1 or later.', published: '2021-12-10', finding: 'Log4Shell (CVE-2021-44228)', applies: hasSw('log4j'), remote: true, exploitable: true },
      { pluginId: '70658', name: 'SSH Server CBC Mode Ciphers Enabled', severity: 1, port: 22, cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N', score: '3.7', risk: 'Low', synopsis: 'The SSH server is configured to use Cipher Block Chaining.', solution: 'Disable CBC mode cipher encryption.', published: '2013-10-28', applies: (a) => a.family === 'linux', remote: true, exploitable: false },
      { pluginId: '58453', name: 'Terminal Services Doesn\'t Use Network Level Authentication (NLA) Only', severity: 2, port: 3389, cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', score: '5.3', risk: 'Medium', synopsis: 'The remote Terminal Services doesn\'t use Network Level Authentication only.', solution: 'Enable Network Level Authentication (NLA) on the remote RDP server.', published: '2012-03-23', applies: isWin, remote: true, exploitable: false },
      { pluginId: '10114', name: 'ICMP Timestamp Request Remote Date Disclosure', severity: 0, port: 0, cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', score: '0.0', risk: 'None', synopsis: 'It is possible to determine the exact time set on the remote host.', solution: 'Filter out the ICMP timestamp requests (13), and the outgoing ICMP timestamp replies (14).', published: '1999-08-01', applies: () => true, remote: false, exploitable: false },
    ];
    const vulnOccurrences = new Map<string, string>();
    for (const inc of this.incidents) if (inc.finding.source === 'vulnerability') vulnOccurrences.set(`${inc.asset.id}|${inc.finding.title}`, inc.occurrenceList[0]!.id);
    let made = 0;
    for (const scan of this.hostScans) {
      const a = scan.asset;
      for (const v of CATALOG) {
        if (!v.applies(a) || (!scan.authenticated && v.severity < 2) || !rng.chance(v.severity === 0 ? 0.3 : 0.6)) continue;
        const occ = v.finding ? vulnOccurrences.get(`${a.id}|${v.finding}`) ?? null : null;
        this.make(
          K.vulnerability,
          {
            plugin_id: v.pluginId,
            plugin_name: v.name,
            description: v.synopsis,
            severity: v.severity,
            additional_data: { cve: v.finding?.match(/CVE-\d{4}-\d+/)?.[0] ?? null, scanner: 'MaxPatrol 8' },
            protocol: v.port === 0 ? 'icmp' : 'tcp',
            port: v.port,
            occurrence_id: occ,
            synopsis: v.synopsis,
            vulnerability_host_id: scan.id,
            exploitable: v.exploitable,
            plugin_output: v.port ? `Port ${v.port}/tcp is open. Banner collected on ${a.ip}.` : `The remote clock is synchronized with the local clock.`,
            solution: v.solution,
            compare_port: v.port,
            compare_protocol: v.port === 0 ? 'icmp' : 'tcp',
            service_asset_id: a.id,
            vulnerability_scan_id: scan.scanId,
            external: a.zone === 'dmz',
            remote_exploitable: v.remote,
            cvss_vector: v.cvss,
            cvss_temporal_vector: v.exploitable ? 'E:F/RL:O/RC:C' : 'E:U/RL:O/RC:C',
            cvss_base_score: v.score,
            cvss_temporal_score: (Math.round(Number(v.score) * (v.exploitable ? 0.94 : 0.87) * 10) / 10).toFixed(1),
            risk_factor: v.risk,
            plugin_modification_date: '2026-09-15',
            publication_date: v.published,
          },
          scan.endUs + rng.int(1, 120) * SEC_US,
        );
        made++;
      }
    }
    if (!made && this.hostScans[0]) {
      const scan = this.hostScans[0];
      this.make(K.vulnerability, { plugin_id: '10114', plugin_name: 'ICMP Timestamp Request Remote Date Disclosure', severity: 0, protocol: 'icmp', port: 0, vulnerability_host_id: scan.id, service_asset_id: scan.asset.id, vulnerability_scan_id: scan.scanId, risk_factor: 'None' }, scan.endUs + SEC_US);
    }
  }

  private messageRows(): void {
    const rng = new Rng(K.message);
    const SOC_NOTES = [
      'Проверили источник {src}: адрес не относится к разрешённым сканерам. Просим подтвердить легитимность активности.',
      'Активность подтверждена, адрес {src} заблокирован на периметре.',
      'Запросили у владельца актива журналы за период инцидента.',
      'Escalated to L2: повторные срабатывания с узла {host}.',
      'Учётная запись заблокирована, пароль сброшен. Ожидаем подтверждения от пользователя.',
      'Узел {host} изолирован средствами KES до завершения проверки.',
      'False positive: плановые работы по резервному копированию, добавили исключение в фильтр.',
    ];
    const CUSTOMER_NOTES = [
      'Работы согласованы, это наш подрядчик (заявка SD-{n}).',
      'Взяли в работу, ответственный — {person}.',
      'Обновление установлено, просим перепроверить.',
      'Риск принимаем до внедрения обновления в следующем квартале.',
      'Пользователь подтвердил, что вход выполнял он (командировка).',
    ];
    const fill = (s: string, inc: IncidentSeed) =>
      s.replace('{src}', inc.srcIp).replace('{host}', inc.asset.host).replace('{n}', String(rng.int(10000, 99999))).replace('{person}', RESPONSIBLE_GROUPS.find((g) => g.key === inc.asset.group)!.people[1]);
    for (const inc of this.incidents) {
      if (inc.history.length > 1 && rng.chance(0.08)) {
        const from = inc.history[1]!.atUs;
        const to = inc.history[inc.history.length - 1]!.status === 'new' ? ANCHOR_US - MIN_US : Math.max(from + MIN_US, inc.history[inc.history.length - 1]!.atUs);
        const n = rng.int(1, 3);
        for (let j = 0; j < n; j++) {
          const fromSoc = j % 2 === 0;
          const sender = fromSoc ? this.soc(rng) : this.customer(rng);
          const atUs = from + Math.floor(((j + rng.next()) / n) * (to - from));
          this.make(
            K.message,
            {
              subject: fromSoc ? `Комментарий аналитика SOC к инциденту #${inc.displayId}` : `Ответ по инциденту #${inc.displayId}`,
              body: fill(rng.pick(fromSoc ? SOC_NOTES : CUSTOMER_NOTES), inc),
              service_asset_id: inc.asset.id,
              service_asset_finding_id: inc.id,
              automated: false,
              finding_id: inc.findingId,
              itsm_sync_status: rng.chance(0.3) ? 'synced' : 'not_synced',
              sender_id: sender.id,
            },
            atUs,
          );
        }
      }
      inc.history.forEach((step, j) => {
        if (step.status !== 'assigned_customer' || !rng.chance(0.15)) return;
        this.make(
          K.message,
          {
            subject: `Инцидент #${inc.displayId} назначен на заказчика`,
            body: `Инцидент «${inc.finding.title}» на узле ${inc.asset.host} передан в работу. Риск: ${inc.risklevel}.`,
            service_asset_id: inc.asset.id,
            service_asset_finding_id: inc.id,
            service_asset_finding_status_change_id: inc.historyIds[j]!,
            automated: true,
            finding_id: inc.findingId,
            itsm_sync_status: 'synced',
            itsm_last_synced_at: ts(past(step.atUs + rng.int(5, 120) * SEC_US)),
            sender_id: null,
          },
          past(step.atUs + rng.int(1, 5) * SEC_US),
        );
      });
    }
    for (const a of rng.sample(this.assets.filter((x) => x.value <= 2), 4)) {
      this.make(
        K.message,
        {
          subject: `Плановые работы: ${a.host}`,
          body: `С 22:00 до 02:00 МСК на ${a.host} выполняются плановые работы; срабатывания о недоступности в это окно ожидаемы.`,
          service_asset_id: a.id,
          automated: false,
          sender_id: this.customer(rng).id,
          itsm_sync_status: 'not_synced',
        },
        ANCHOR_US - rng.int(2, 60) * DAY_US + rng.int(0, 86_399) * SEC_US,
      );
    }
  }

  private customFields(): void {
    const rng = new Rng(K.customField);
    const defs = [
      { key: 'ticket_number', title: 'Номер заявки в ServiceDesk', type: 'string', p: 0.08 },
      { key: 'affected_users', title: 'Затронуто пользователей', type: 'integer', p: 0.03 },
      { key: 'damage_estimate_rub', title: 'Оценка ущерба, руб.', type: 'float', p: 0.02 },
      { key: 'remediation_deadline', title: 'Срок устранения', type: 'date', p: 0.04 },
      { key: 'mitre_attack', title: 'MITRE ATT&CK', type: 'json', p: 0.04 },
      { key: 'reported_to_gossopka', title: 'Передано в ГосСОПКА', type: 'boolean', p: 0.02 },
    ] as const;
    const ids = defs.map((d, i) =>
      this.make(K.customField, { field_key: d.key, title: d.title, field_type: d.type, order_direction: i }, ANCHOR_US - (HISTORY_DAYS + 2) * DAY_US + i * HOUR_US),
    );
    let made = 0;
    for (const inc of this.incidents) {
      defs.forEach((d, i) => {
        const force = made === 0 && inc === this.incidents[this.incidents.length - 1];
        if (!force && !rng.chance(d.p)) return;
        const atUs = past((inc.history[1]?.atUs ?? inc.createdUs) + rng.int(1, 600) * SEC_US);
        const value: WriteBody = {};
        switch (d.type) {
          case 'string':
            value.string_value = `SD-2026-${String(rng.int(1000, 99999)).padStart(6, '0')}`;
            break;
          case 'integer':
            value.integer_value = rng.int(1, 250);
            break;
          case 'float':
            value.float_value = rng.int(5, 2000) * 1000 + rng.int(0, 99) / 100;
            break;
          case 'date':
            value.date_value = dateOf(inc.createdUs + rng.int(3, 30) * DAY_US);
            break;
          case 'json':
            value.json_value = { tactic: inc.finding.category, technique: inc.finding.mitre ?? null, confidence: rng.pick(['low', 'medium', 'high']) };
            break;
          case 'boolean':
            value.boolean_value = rng.chance(0.5);
            break;
        }
        this.make(K.customFieldValue, { custom_field_id: ids[i]!, service_asset_finding_id: inc.id, ...value }, atUs);
        made++;
      });
    }
  }

  // ---- correlation

  private correlationContent(): void {
    const rng = new Rng('correlation_content');
    const base = ANCHOR_US - (HISTORY_DAYS + 3) * DAY_US;
    const cond = (c: Cond, negation = false) => ({ ...conditionFor(rng, c, null), negation });
    const filters: readonly { key: string; name: string; config: Record<string, unknown>[] }[] = [
      { key: 'scanners', name: 'Исключить сканеры уязвимостей', config: [cond(['src.ip', 'in', INTERNAL_SCANNERS], true)] },
      { key: 'windows', name: 'Только журнал Windows Security', config: [cond(['event.provider', 'eq', 'Microsoft-Windows-Security-Auditing']), cond(['event.channel', 'eq', 'Security'])] },
      { key: 'service-accounts', name: 'Исключить служебные учётные записи', config: [cond(['user.name', 'regex', '^(svc_|sa_|\\$)'], true)] },
      { key: 'internal', name: 'Внутренние подсети', config: [cond(['src.ip', 'in', ['10.0.0.0/8', '192.168.0.0/16']])] },
      { key: 'linux-auth', name: 'Linux: журнал аутентификации', config: [cond(['event.category', 'eq', 'authentication']), cond(['os.family', 'eq', 'linux'])] },
      { key: 'kes', name: 'События Kaspersky Security Center', config: [cond(['event.provider', 'eq', 'Kaspersky Endpoint Security'])] },
    ];
    filters.forEach((f, i) => {
      const checks = rng.int(100_000, 50_000_000);
      const id = this.make(
        K.engineGoFilter,
        { name: f.name, config: f.config, stats: { hit_count: Math.floor(checks * rng.next() * 0.3), hit_eps: rng.dec1(0, 40), check_count: checks, check_eps: rng.dec1(50, 900), check_time: rng.int(2, 80) / 100 } },
        base + i * HOUR_US + rng.int(0, 3599) * SEC_US,
      );
      this.filterIds.set(f.key, id);
    });
    const modules: readonly { key: string; name: string; system: boolean; content: string }[] = [
      {
        key: 'common',
        name: 'common',
        system: true,
        content: [
          'local M = {}',
          '',
          'function M.in_list(value, list)',
          '  for _, v in ipairs(list) do',
          '    if v == value then return true end',
          '  end',
          '  return false',
          'end',
          '',
          'function M.match(value, pattern)',
          '  return value ~= nil and regexp.match(pattern, value)',
          'end',
          '',
          'function M.in_store(store, value)',
          '  return value ~= nil and storage.get(store, value) ~= nil',
          'end',
          '',
          'return M',
          '',
        ].join('\n'),
      },
      { key: 'worktime', name: 'worktime', system: false, content: 'local M = {}\n\n-- Рабочее время МСК: будни 07:00–22:00\nfunction M.is_work_time(ts)\n  local t = time.parse(ts):in_zone("Europe/Moscow")\n  return t.weekday >= 1 and t.weekday <= 5 and t.hour >= 7 and t.hour < 22\nend\n\nreturn M\n' },
      { key: 'ad', name: 'ad_helpers', system: false, content: 'local M = {}\n\nM.PRIVILEGED_GROUPS = { "Domain Admins", "Enterprise Admins", "Администраторы домена" }\n\nfunction M.is_service_account(name)\n  return name ~= nil and (name:sub(1, 4) == "svc_" or name:sub(-1) == "$")\nend\n\nreturn M\n' },
      { key: 'geoip', name: 'geoip', system: true, content: 'local M = {}\n\nfunction M.country(ip)\n  return geo.lookup(ip).country_iso or "--"\nend\n\nreturn M\n' },
    ];
    modules.forEach((m, i) => {
      this.moduleIds.set(m.key, this.make(K.engineGoModule, { name: m.name, content: m.content, is_system: m.system }, base + (i + 8) * HOUR_US));
    });
    const groupId = (name: string) => this.assetGroups.find((g) => g.name === name)?.id;
    const sets: readonly { key: string; name: string; create: boolean; groups: readonly string[] }[] = [
      { key: 'windows', name: 'Базовый набор: Windows и Active Directory', create: true, groups: ['Серверы ЦОД-1', 'Контроллеры домена', 'Рабочие станции: Москва', 'Рабочие станции: филиалы'] },
      { key: 'linux', name: 'Базовый набор: Linux', create: true, groups: ['Linux-серверы'] },
      { key: 'perimeter', name: 'Периметр и DMZ', create: true, groups: ['DMZ', 'Периметр'] },
      { key: 'compliance', name: 'Контроль ПО на рабочих станциях', create: true, groups: ['Рабочие станции: Москва', 'Рабочие станции: филиалы'] },
      { key: 'kii', name: 'Объекты КИИ и ФинЦЕРТ', create: true, groups: ['Объекты КИИ: ИС бухгалтерского учёта', 'Финансовые системы (ФинЦЕРТ)'] },
      { key: 'test', name: 'Отладка правил (без создания инцидентов)', create: false, groups: ['Тестовые стенды'] },
    ];
    sets.forEach((s, i) => {
      const groups = s.groups.map(groupId).filter((x): x is string => !!x);
      this.ruleSetIds.set(s.key, this.make(K.ruleSet, { name: s.name, create_service_asset_findings: s.create, _relations: { [K.serviceAssetGroup]: groups } }, base + (i + 16) * HOUR_US));
    });
    const stores: readonly (WriteBody & { key: string })[] = [
      { key: 'whitelist', name: 'Белый список IP-адресов сканеров', description: 'Адреса сканеров уязвимостей и систем мониторинга', values_scheme: [{ name: 'ip', type: 'string', is_key: true }, { name: 'comment', type: 'string', is_key: false }], type: 'list', store_count: INTERNAL_SCANNERS.length + 1, content: [...INTERNAL_SCANNERS, '10.10.30.40'].join('\n') },
      { key: 'failed', name: 'Счётчик неудачных входов', description: 'Счётчик по паре (src.ip, user.name), TTL 1 час', values_scheme: [{ name: 'key', type: 'string', is_key: true }, { name: 'count', type: 'integer', is_key: false }], type: 'counter', store_count: rng.int(200, 3000) },
      { key: 'blocked', name: 'Заблокированные учётные записи', description: 'Учётные записи, заблокированные по результатам реагирования', values_scheme: [{ name: 'user', type: 'string', is_key: true }, { name: 'blocked_at', type: 'datetime', is_key: false }], type: 'list', store_count: rng.int(5, 40) },
      { key: 'ioc_ip', name: 'Индикаторы компрометации: IP-адреса', description: 'Фид НКЦКИ и коммерческие фиды угроз', values_scheme: [{ name: 'ip', type: 'string', is_key: true }, { name: 'source', type: 'string', is_key: false }, { name: 'threat', type: 'string', is_key: false }], type: 'list', is_large: true, store_count: rng.int(40_000, 120_000), source: 'feed', tollerId: 'ioc-feed-01' },
      { key: 'hr', name: 'Справочник сотрудников (кадровая БД)', description: 'Внешняя БД 1С:ЗУП через реплику PostgreSQL', values_scheme: [{ name: 'login', type: 'string', is_key: true }, { name: 'full_name', type: 'string', is_key: false }, { name: 'department', type: 'string', is_key: false }], type: 'external', source: 'postgresql', scheme: 'public', db_name: 'hr_replica', user: 'siem_reader', password: 'Zx7!demo-only', mask_values: true, store_count: rng.int(800, 1500) },
      { key: 'worktime', name: 'Производственный календарь 2026', description: 'Рабочие и праздничные дни', values_scheme: [{ name: 'date', type: 'string', is_key: true }, { name: 'is_workday', type: 'boolean', is_key: false }], type: 'list', store_count: 365 },
    ];
    stores.forEach(({ key, ...body }, i) => {
      this.valueStoreIds.set(key, this.make(K.valueStore, { version: rng.int(1, 12), ...body }, base + (i + 24) * HOUR_US));
    });
  }

  private engineGoRules(): void {
    const rng = new Rng(K.engineGoRule);
    const folders = { windows: rng.uuid(), linux: rng.uuid(), network: rng.uuid() };
    const correlation = FINDINGS.filter((f) => f.rule);
    const extras: FindingSpec[] = [
      { ...FINDINGS[0]!, title: 'Тестовое правило: подбор пароля SSH (порог 3)', weight: 0, rule: { ...FINDINGS[0]!.rule!, count: 3 } },
      { ...FINDINGS[9]!, title: 'Ретроспективный поиск IoC за 30 дней', weight: 0 },
    ];
    const occCount = new Map<FindingSpec, number>();
    for (const inc of this.incidents) occCount.set(inc.finding, (occCount.get(inc.finding) ?? 0) + inc.occurrenceList.length);
    [...correlation, ...extras].forEach((f, i) => {
      const r = f.rule!;
      const extra = i >= correlation.length;
      const windows = r.conds.some(([field]) => field === 'event.code') || f.target === isWin || f.target === isWinSrv;
      const linux = r.conds.some(([, , v]) => v === 'sshd');
      const folder = windows ? folders.windows : linux ? folders.linux : folders.network;
      const alertId = rng.uuid();
      const grouperId = rng.uuid();
      const conditions = r.conds.map((c) => conditionFor(rng, c, null));
      const results = extra ? rng.int(0, 40) : (occCount.get(f) ?? 0) + rng.int(0, 30);
      const filters = [
        ...(f.type === 'bruteforce' || f.type === 'network_anomaly' ? ['scanners'] : []),
        ...(windows ? ['windows', 'service-accounts'] : []),
        ...(linux ? ['linux-auth'] : []),
        ...(f.rule?.conds.some(([field, , v]) => field === 'event.provider' && v === 'Kaspersky Endpoint Security') ? ['kes'] : []),
      ];
      const sets = extra ? ['test'] : [windows ? 'windows' : linux ? 'linux' : 'perimeter', ...(f.risk >= 8 ? ['kii'] : [])];
      const stores = [
        ...(f.type === 'bruteforce' ? ['failed', 'whitelist'] : []),
        ...(f.type === 'c2' ? ['ioc_ip'] : []),
        ...(f.title.includes('нерабочее') ? ['worktime', 'hr'] : []),
        ...(f.type === 'account_compromise' ? ['blocked'] : []),
      ];
      const swGroups = linux ? ['sys-net'] : f.type === 'web_attack' ? ['app-web'] : f.type === 'defense_evasion' && f.rule?.conds.some(([, , v]) => v === 'Kaspersky Endpoint Security') ? ['sec-av'] : [];
      const incidents = extra ? [] : this.incidents.filter((inc) => inc.finding === f).map((inc) => inc.id);
      const createdUs = ANCHOR_US - (HISTORY_DAYS + 2) * DAY_US + i * 3 * HOUR_US + rng.int(0, 3599) * SEC_US;
      const sample = sampleEvent(r, createdUs, rng.pick(ATTACKERS), this.assets[0]!, 'ivanov.ea');
      const id = this.make(
        K.engineGoRule,
        {
          name: f.title,
          frontend_data: {
            version: 3,
            alert: {
              id: alertId,
              trace_id: rng.uuid(),
              name: f.title,
              create_incident: !extra,
              assign_to_customer: f.risk >= 7 && !extra,
              risk_level: f.risk,
              asset_ip: 'dst.ip',
              asset_hostname: 'dst.host',
              asset_fqdn: 'dst.fqdn',
              asset_mac: 'dst.mac',
              first_and_last_logs: true,
              trim_logs: 20,
              template: r.template,
              mitre: f.mitre ?? '',
              incident_group: f.category,
            },
            grouper: {
              id: grouperId,
              trace_id: rng.uuid(),
              name: 'grouper1',
              grouped_by: [...r.groupBy],
              aggregated_by: r.unique ? [r.unique] : [],
              grouped_time_field: '@timestamp',
              grouped_time_type: 'logline',
              detection_windows: r.windowSec * 1000,
              detection_windows_unit: 'ms',
              aggregate_count: r.count,
              aggregate_unique: !!r.unique,
              chain_pattern:
                f.type === 'account_compromise' && r.conds[0]?.[1] === 'in'
                  ? [
                      { id: rng.uuid(), type: 'chain-pattern-condition', parentId: null, negation: false, compareFn: 'eq', expressions: [{ type: 'logline-get', value: 'event.code' }, { type: 'const-string', value: '4625' }], repeat: 5 },
                      { id: rng.uuid(), type: 'chain-pattern-condition', parentId: null, negation: false, compareFn: 'eq', expressions: [{ type: 'logline-get', value: 'event.code' }, { type: 'const-string', value: '4624' }], repeat: 1 },
                    ]
                  : [],
            },
            actions: stores.includes('failed')
              ? [{ type: 'store-set', store: 'Счётчик неудачных входов', value: '1', column: 'count', TTL: '1h', key: { _default: { type: 'logline-get', value: 'src.ip' } } }]
              : [],
            conditions,
          },
          test_data: [sample, { ...sample, '@timestamp': ts(createdUs + 5 * SEC_US) }],
          settings: { function_metrics: rng.chance(0.3), is_constructor: !extra && rng.chance(0.7), max_alerts: 1000, max_alerts_per_second: 10, max_rule_memory_mb: f.rule!.unique ? 256 : 64 },
          active: !(extra && i === correlation.length),
          reload: false,
          finding_id: extra ? null : this.findingIds.get(f)!,
          content_folder_id: folder,
          description: `${f.description}${f.mitre ? ` MITRE ATT&CK: ${f.mitre}.` : ''}`,
          lua: ruleLua(f, r),
          is_retro: extra && i === correlation.length + 1,
          is_system: !extra && rng.chance(0.6),
          stats: { result_count: results, error_count: f.type === 'exfiltration' ? rng.int(1, 5) : 0 },
          is_error: f.type === 'exfiltration' && f.port === 53 ? 1 : 0,
          running_at: ts(ANCHOR_US - rng.int(1, 3600) * SEC_US),
          _relations: {
            [K.engineGoFilter]: filters.map((k) => this.filterIds.get(k)!),
            [K.engineGoModule]: [this.moduleIds.get('common')!, ...(windows ? [this.moduleIds.get('ad')!] : []), ...(stores.includes('worktime') ? [this.moduleIds.get('worktime')!] : []), ...(f.type === 'c2' ? [this.moduleIds.get('geoip')!] : [])],
            [K.ruleSet]: sets.map((k) => this.ruleSetIds.get(k)!),
            [K.valueStore]: stores.map((k) => this.valueStoreIds.get(k)!),
            [K.softwareGroup]: swGroups.map((k) => this.swGroupIds.get(k as SwGroupKey)!),
            [K.incident]: incidents,
          },
        },
        createdUs,
      );
      if (!extra) this.ruleIds.set(f, id);
      else this.ruleIds.set(extras[i - correlation.length]!, id);
    });
  }

  private engineGoResults(): void {
    const rng = new Rng(K.engineGoResult);
    let made = 0;
    for (const inc of this.incidents) {
      const ruleId = this.ruleIds.get(inc.finding);
      if (!ruleId || !inc.finding.rule) continue;
      inc.occurrenceList.forEach((occ, j) => {
        if (!(j === 0 ? rng.chance(0.18) : rng.chance(0.05)) && !(made === 0 && inc === this.incidents[this.incidents.length - 1])) return;
        const user = rng.pick(['ivanov.ea', 'smirnov.pk', 'svc_backup', 'administrator', 'popov.an', 'kozlova.iv']);
        const event = sampleEvent(inc.finding.rule!, occ.atUs, inc.srcIp, inc.asset, user);
        this.make(
          K.engineGoResult,
          {
            rule_id: ruleId,
            analysis_output: inc.finding.rule!.template.replace(/\{\{ \.(First|Last)\.([\w.]+) \}\}/g, (_, _w: string, field: string) => String(event[field] ?? '—')).replace(/\{\{ \.(Count|Unique) \}\}/g, String(inc.finding.rule!.count + rng.int(0, 20))),
            event,
            compressed_event: Buffer.from(JSON.stringify(event)).toString('base64'),
            risklevel: inc.risklevel,
            occurred_at: ts(occ.atUs - rng.int(1, 30) * SEC_US),
            occurrence_id: occ.id,
            error: null,
            service_asset_id: inc.asset.id,
            asset_info: { ip: inc.asset.ip, hostname: inc.asset.host, fqdn: inc.asset.fqdn, mac: inc.asset.mac },
            incident_identifier: inc.id,
            metadata: JSON.stringify({ rule_version: 3, engine: 'engine-go 3.7.2', collector: 'siem-col-01', window_ms: inc.finding.rule!.windowSec * 1000 }),
            _relations: { [K.serviceAssetGroup]: inc.asset.assetGroupIds },
          },
          occ.atUs,
        );
        made++;
      });
    }
    // Runtime errors of the DNS tunnelling rule: no occurrence, no asset.
    const dns = FINDINGS.find((f) => f.port === 53 && f.rule)!;
    for (let i = 0; i < 3; i++) {
      const atUs = ANCHOR_US - rng.int(1, 20) * DAY_US + rng.int(0, 86_399) * SEC_US;
      this.make(
        K.engineGoResult,
        {
          rule_id: this.ruleIds.get(dns)!,
          analysis_output: null,
          event: { '@timestamp': ts(atUs), 'event.category': 'dns', 'dns.query': null },
          risklevel: 0,
          occurred_at: ts(atUs),
          error: 'runtime error: attempt to compare nil with number (rule line 21)',
          metadata: JSON.stringify({ rule_version: 3, engine: 'engine-go 3.7.2' }),
        },
        atUs,
      );
    }
  }

  private complianceRules(): void {
    const rng = new Rng(K.rule);
    const defs: readonly (readonly [name: string, query: string, blacklist: boolean, sets: readonly string[]])[] = [
      ['Запрещено: TeamViewer', 'teamviewer', true, ['compliance']],
      ['Запрещено: AnyDesk', 'anydesk', true, ['compliance']],
      ['Запрещены средства удалённого доступа', '(teamviewer | anydesk | ammyy | radmin) & !\'radmin-viewer\'', true, ['compliance', 'kii']],
      ['Запрещены torrent-клиенты', "qbittorrent | transmission | 'utorrent':*", true, ['compliance', 'linux']],
      ['Установлен Kaspersky Endpoint Security (Windows)', 'kaspersky & endpoint & security', false, ['compliance', 'windows']],
      ['Установлен KESL (Linux)', 'kesl', false, ['linux']],
      ['OpenSSH: только клиент на рабочих станциях', 'openssh & !server', false, ['compliance']],
      ['Веб-сервер: nginx или Apache', "'nginx':* | apache", false, ['perimeter']],
      ['СКЗИ КриптоПро CSP на АРМ бухгалтерии', 'криптопро & csp', false, ['kii']],
      ['Платформа 1С:Предприятие 8.3', "'1с':* & предприятие", false, ['kii', 'windows']],
      ['Уязвимые версии Log4j', "'log4j':* <-> core", true, ['linux', 'perimeter']],
      ['PostgreSQL 14 и новее', 'postgresql <-> 14 | postgrespro:*', false, ['linux']],
    ];
    defs.forEach(([name, query, blacklist, sets], i) => {
      this.make(
        K.rule,
        { trace_id: rng.uuid(), name, query, blacklist_entry: blacklist, _relations: { [K.ruleSet]: sets.map((k) => this.ruleSetIds.get(k)!) } },
        ANCHOR_US - (HISTORY_DAYS + 1) * DAY_US + i * HOUR_US + rng.int(0, 3599) * SEC_US,
      );
    });
  }

  private integrations(): void {
    const rng = new Rng('integrations');
    const scripts: readonly { key: string; name: string; description: string; command: string; parameters: readonly string[]; enabled: boolean }[] = [
      { key: 'block_ip', name: 'Блокировка IP-адреса на UserGate', description: 'Добавляет адрес в список блокировки межсетевого экрана периметра', command: '/opt/radar/scripts/usergate_block_ip.sh --ip {{ip}} --ttl {{duration}}', parameters: ['ip', 'duration'], enabled: true },
      { key: 'disable_user', name: 'Отключение учётной записи в AD', description: 'Disable-ADAccount через сервер автоматизации', command: 'pwsh -File C:\\Radar\\Disable-User.ps1 -SamAccountName {{user}} -Reason {{reason}}', parameters: ['user', 'reason'], enabled: true },
      { key: 'isolate', name: 'Изоляция узла через Kaspersky Security Center', description: 'Запускает задачу сетевой изоляции KES на узле', command: '/opt/radar/scripts/ksc_isolate.py --host {{host}}', parameters: ['host'], enabled: true },
      { key: 'ticket', name: 'Создание заявки в ServiceDesk', description: 'Создаёт заявку в Naumen ServiceDesk с данными инцидента', command: '/opt/radar/scripts/naumen_ticket.py --title {{title}} --priority {{priority}}', parameters: ['title', 'priority'], enabled: true },
      { key: 'telegram', name: 'Уведомление в Telegram (дежурная смена)', description: 'Сообщение в чат дежурной смены SOC', command: '/opt/radar/scripts/notify_telegram.sh {{message}}', parameters: ['message'], enabled: true },
      { key: 'email', name: 'Send email notification', description: 'Sends an e-mail to the asset owner', command: '/opt/radar/scripts/sendmail.py --to {{to}} --subject {{subject}}', parameters: ['to', 'subject'], enabled: false },
    ];
    scripts.forEach((s, i) => {
      this.scriptIds.set(s.key, this.make(K.integrationScript, { name: s.name, description: s.description, command: s.command, parameters: [...s.parameters], enabled: s.enabled }, ANCHOR_US - (HISTORY_DAYS - 5) * DAY_US + i * HOUR_US));
    });
    const p = (name: string, value: string, fromLogline: boolean, strategy: 'first' | 'last' = 'first') => ({ parameter_name: name, parameter_value: value, from_logline: fromLogline, strategy });
    const byTitle = (prefix: string) => [...this.ruleIds.entries()].find(([f]) => f.title.startsWith(prefix))?.[1];
    const actions: readonly (readonly [rule: string, script: string, params: ReturnType<typeof p>[], state: boolean])[] = [
      ['Подбор пароля SSH', 'block_ip', [p('ip', 'src.ip', true), p('duration', '3600', false, 'last')], true],
      ['Подбор пароля RDP', 'block_ip', [p('ip', 'src.ip', true), p('duration', '7200', false, 'last')], true],
      ['Подбор пароля RDP', 'telegram', [p('message', 'Подбор пароля RDP на узле', false)], true],
      ['Port scan detected', 'block_ip', [p('ip', 'src.ip', true, 'last'), p('duration', '900', false)], false],
      ['Обнаружен вредоносный файл', 'isolate', [p('host', 'dst.host', true)], true],
      ['Обнаружен вредоносный файл', 'ticket', [p('title', 'file.name', true), p('priority', 'high', false)], true],
      ['Успешный вход после серии', 'disable_user', [p('user', 'user.name', true, 'last'), p('reason', 'SOC: подозрение на компрометацию', false)], true],
      ['Добавление пользователя в группу', 'telegram', [p('message', 'target.user.name', true)], true],
      ['Обращение к известному C&C', 'isolate', [p('host', 'src.host', true)], true],
      ['Обращение к известному C&C', 'block_ip', [p('ip', 'dst.ip', true), p('duration', '86400', false)], true],
      ['Suspicious LSASS', 'ticket', [p('title', 'dst.host', true), p('priority', 'critical', false)], true],
      ['Отключение антивирусной защиты', 'email', [p('to', 'owner.email', true), p('subject', 'Отключена антивирусная защита', false)], false],
    ];
    actions.forEach(([rule, script, params, state], i) => {
      const ruleId = byTitle(rule);
      if (!ruleId) return;
      const author = this.users.filter((u) => u.team === 'soc')[i % 6]!;
      this.make(
        K.integrationAction,
        { rule_id: ruleId, integration_script_id: this.scriptIds.get(script)!, params, state },
        ANCHOR_US - (HISTORY_DAYS - 10) * DAY_US + i * 5 * HOUR_US + rng.int(0, 3599) * SEC_US,
        // user_id is read-only through the API (taken from Pgr-User-Id): set as the server does.
        { user_id: author.id },
      );
    });
  }

  private inputSources(): void {
    const rng = new Rng(K.inputSource);
    const pipeline = (...steps: string[]) => steps.map((name, i) => ({ id: `step-${i + 1}`, name, type: i === 0 ? 'parser' : 'normalizer', enabled: true }));
    const defs: readonly { name: string; type: string; vendor: string; display: string; port: number; input: string; steps: readonly string[]; assets: (a: AssetSeed) => boolean; active?: boolean; min?: number; max?: number }[] = [
      { name: 'windows-security', type: 'windows_eventlog', vendor: 'Microsoft', display: 'Windows Security (WEC)', port: 5986, input: 'raw-json', steps: ['json', 'windows_security'], assets: isWin },
      { name: 'linux-syslog', type: 'syslog', vendor: 'Linux', display: 'Linux syslog (rsyslog)', port: 1514, input: 'syslog', steps: ['syslog_rfc5424', 'linux_auth'], assets: (a) => a.family === 'linux' },
      { name: 'usergate-fw', type: 'cef', vendor: 'UserGate', display: 'UserGate UTM (CEF)', port: 5514, input: 'cef', steps: ['cef', 'usergate_traffic'], assets: isRole('fw') },
      { name: 'vipnet-coordinator', type: 'syslog', vendor: 'ИнфоТеКС', display: 'ViPNet Coordinator', port: 5515, input: 'syslog', steps: ['syslog_rfc3164', 'vipnet'], assets: isRole('vpn') },
      { name: 'ksc-events', type: 'syslog', vendor: 'Kaspersky', display: 'Kaspersky Security Center (SIEM export)', port: 6514, input: 'syslog', steps: ['syslog_rfc5424', 'kaspersky_ksc'], assets: isRole('ksc') },
      { name: 'nginx-access', type: 'file', vendor: 'nginx', display: 'nginx access log (JSON)', port: 9514, input: 'raw-json', steps: ['json', 'nginx_access'], assets: isRole('web') },
      { name: 'netflow-core', type: 'netflow', vendor: 'Cisco', display: 'NetFlow v9 (ядро сети)', port: 2055, input: 'netflow', steps: ['netflow_v9'], assets: (a) => a.family === 'netdev', min: 100, max: 50000 },
      { name: 'postgres-audit', type: 'file', vendor: 'PostgreSQL', display: 'PostgreSQL pgaudit', port: 9515, input: 'raw-json', steps: ['json', 'pgaudit'], assets: hasSw('pg14', 'pgpro15') },
      { name: '1c-techlog', type: 'file', vendor: '1С', display: 'Технологический журнал 1С', port: 9516, input: 'raw-text', steps: ['regex_1c_techlog', '1c'], assets: isRole('1c'), active: false },
      { name: 'squid-access', type: 'syslog', vendor: 'Squid', display: 'Squid access log', port: 1515, input: 'syslog', steps: ['syslog_rfc3164', 'squid'], assets: isRole('proxy') },
    ];
    defs.forEach((d, i) => {
      const members = this.assets.filter(d.assets).map((a) => a.id);
      this.inputSourceIds.push(
        this.make(
          K.inputSource,
          {
            trace_id: rng.uuid(),
            name: d.name,
            source_type: d.type,
            vendor: d.vendor,
            display_name: d.display,
            port: d.port,
            is_active: d.active ?? true,
            check_min: d.min !== undefined,
            check_max: d.max !== undefined,
            no_raw: d.type === 'netflow',
            check_min_value: d.min ?? null,
            check_max_value: d.max ?? null,
            input_type: d.input,
            pipelines: pipeline(...d.steps),
            _relations: { [K.serviceAsset]: members },
          },
          ANCHOR_US - (HISTORY_DAYS + 4) * DAY_US + i * 2 * HOUR_US + rng.int(0, 3599) * SEC_US,
        ),
      );
    });
  }

  private agentRows(): void {
    const rng = new Rng(K.agent);
    const defs: readonly { name: string; host: string; ip: string; os: string; status: 'online' | 'offline' | 'error'; sources: readonly number[]; pending: boolean }[] = [
      { name: 'agent-msk-dc1-01', host: 'siem-col-01.corp.local', ip: '10.10.30.11', os: 'Astra Linux Special Edition 1.7.5', status: 'online', sources: [0, 1, 4], pending: false },
      { name: 'agent-msk-dc1-02', host: 'siem-col-02.corp.local', ip: '10.10.30.12', os: 'Astra Linux Special Edition 1.7.5', status: 'online', sources: [2, 3, 6], pending: true },
      { name: 'agent-msk-dmz-01', host: 'proxy-01.corp.local', ip: '10.0.100.20', os: 'Debian GNU/Linux 12 (bookworm)', status: 'online', sources: [5, 9], pending: false },
      { name: 'agent-msk-db-01', host: 'srv-db-01.corp.local', ip: '10.10.10.11', os: 'Astra Linux Special Edition 1.7.5', status: 'online', sources: [7], pending: true },
      { name: 'agent-msk-1c-01', host: 'srv-1c-01.corp.local', ip: '10.10.20.11', os: 'Windows Server 2019 Standard', status: 'error', sources: [8], pending: false },
      { name: 'agent-spb-01', host: 'spb-col-01.corp.local', ip: '192.168.16.10', os: 'Astra Linux Special Edition 1.7.5', status: 'online', sources: [0, 1], pending: false },
      { name: 'agent-ekb-01', host: 'ekb-col-01.corp.local', ip: '192.168.32.10', os: 'РЕД ОС 7.3', status: 'offline', sources: [0], pending: true },
      { name: 'agent-nsk-01', host: 'nsk-col-01.corp.local', ip: '192.168.48.10', os: 'Astra Linux Special Edition 1.7.5', status: 'online', sources: [0, 1], pending: false },
    ];
    defs.forEach((d, i) => {
      const config = {
        log_level: 'info',
        buffer_size_mb: 256,
        batch_size: 500,
        tls: true,
        server: 'radar-master.corp.local:9000',
        inputs: d.sources.map((s) => this.inputSourceIds[s]!),
      };
      const createdUs = ANCHOR_US - (HISTORY_DAYS + 3) * DAY_US + i * 3 * HOUR_US + rng.int(0, 3599) * SEC_US;
      const lastSeenUs = d.status === 'online' ? ANCHOR_US - rng.int(5, 90) * SEC_US : ANCHOR_US - rng.int(2, 72) * HOUR_US;
      // config_version / applied_at are set by apply_config only; the seed records earlier publications.
      const versions = rng.int(1, 9);
      this.make(
        K.agent,
        {
          name: d.name,
          hostname: d.host,
          ip: d.ip,
          os: d.os,
          version: d.status === 'error' ? '3.6.4' : '3.7.2',
          status: d.status,
          last_seen_at: ts(lastSeenUs),
          config,
          pending_config: d.pending ? { ...config, log_level: 'debug', buffer_size_mb: 512 } : null,
          _relations: { [K.inputSource]: d.sources.map((s) => this.inputSourceIds[s]!) },
        },
        createdUs,
        { config_version: versions, applied_at: ts(createdUs + rng.int(1, 60) * DAY_US) },
      );
    });
  }

  /**
   * Incident counters and last occurrence, stamped with the incident's last activity: fields no
   * kind effect reacts to, set through updateSet (one UPDATE each, without re-reading each
   * incident twice).
   */
  private finishIncidents(): void {
    const incidents = this.res(K.incident);
    for (const inc of this.incidents) {
      const lastOcc = inc.occurrenceList[inc.occurrenceList.length - 1]!;
      const lastStep = inc.history[inc.history.length - 1]!;
      this.store.updateSet(
        incidents,
        [inc.id],
        { last_occurrence_id: lastOcc.id, c_occurrence_count: inc.occurrenceList.length },
        { source: 'seed', at: ts(Math.max(lastOcc.atUs, lastStep.atUs)) },
      );
    }
  }
}

/**
 * Seeds a deterministic demo dataset into an empty database: every resource of the registry
 * gets records, every many-to-many link table gets rows. Runs in one transaction; answers
 * how many rows each resource gained.
 */
export function seedDemo(store: Store, opts: SeedOptions = {}): SeedSummary {
  const scale = opts.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`seed: scale must be a positive number, got ${scale}`);
  const count = () => Object.fromEntries(RESOURCES.map((r) => [r.name, store.get1<{ n: number }>(`SELECT COUNT(*) AS n FROM ${q(r.table)}`)!.n]));
  return store.tx(() => {
    const before = count();
    new Seeder(store, scale).run();
    const after = count();
    return Object.fromEntries(RESOURCES.map((r) => [r.name, after[r.name]! - before[r.name]!]));
  });
}
