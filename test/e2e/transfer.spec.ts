// Offline review in Chromium against the real `serve`: files dropped on the window are imported
// (into a new instance, or refused with the file, position and reason, or cancelled) with the
// effect checked through the API; the filtered incident table exported as CSV and NDJSON is
// compared with what the API answers for the same request, in English and in Russian.
import fs from 'node:fs';
import type { JSHandle, Page } from '@playwright/test';
import { api, expect, incidents, loadedRows, openConsole, snap, test, routed, type Served, LOOK } from './fixtures';
import { parseCsv } from '../helpers/csv';

/** An export as a script would take it (POST /console/v1/export), as text. */
async function exported(s: Served, body: Record<string, unknown>): Promise<string> {
  const r = await fetch(`${s.main}/console/v1/export`, { method: 'POST', headers: { PgrApiKey: s.apiKey, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return r.text();
}

interface Inst {
  id: string;
  name: string;
  kind: string;
}

/** A DataTransfer in the page holding File objects made from texts. */
function filesHandle(page: Page, files: { name: string; text: string; type: string }[]): Promise<JSHandle<DataTransfer>> {
  return page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text], f.name, { type: f.type }));
    return dt;
  }, files);
}

/** Drags the files over the window (the overlay shows) and drops them. */
async function drop(page: Page, dt: JSHandle<DataTransfer>, shot?: () => Promise<void>): Promise<void> {
  await page.dispatchEvent('main', 'dragenter', { dataTransfer: dt });
  await page.dispatchEvent('main', 'dragover', { dataTransfer: dt });
  await expect(page.getByTestId('drop-overlay')).toBeVisible();
  await expect(page.getByTestId('drop-overlay')).toContainText(/Drop to import|Отпустите, чтобы импортировать/);
  if (shot) await shot();
  await page.dispatchEvent('main', 'drop', { dataTransfer: dt });
  await expect(page.getByTestId('drop-overlay')).toHaveCount(0);
}

/** Records the import phases the dialog shows, as they appear. */
async function watchPhases(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __phases: string[] };
    w.__phases = [];
    const seen = () => {
      const el = document.querySelector('[data-testid="import-phase"]');
      const text = el?.textContent ?? '';
      if (text && w.__phases[w.__phases.length - 1] !== text) w.__phases.push(text);
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

const phases = (page: Page) => page.evaluate(() => (window as unknown as { __phases: string[] }).__phases);

/** A value as the export writes it in a CSV cell (formula-like text gets a leading apostrophe). */
function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

test('drop an export of incidents into a new instance: progress, the summary, and the incidents in the new instance', async ({ page, served }, testInfo) => {
  const NAME = 'Офлайн-разбор: Казань';
  // An export taken from the server itself (the public shape: incidents with their assets and
  // occurrences) with changed titles, and the finding types they refer to.
  const findings = await exported(served, { resource: 'findings', format: 'ndjson' });
  const lines = (await exported(served, { resource: 'incidents', format: 'ndjson', query: 'status=eq,new&order=-risklevel&per_page=12' })).trim().split('\n');
  const records = lines.map((l, i) => {
    const r = JSON.parse(l) as Record<string, unknown> & { title: string; service_asset: { id: string } | null; occurrences?: unknown[] };
    return { ...r, title: `Разбор ${String(i + 1).padStart(2, '0')}: ${r.title}` };
  });
  const incidentsText = `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
  const assets = new Set(records.map((r) => r.service_asset?.id).filter(Boolean));

  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  const dt = await filesHandle(page, [
    { name: 'findings.ndjson', text: findings, type: 'application/x-ndjson' },
    { name: 'incidents.ndjson', text: incidentsText, type: 'application/x-ndjson' },
  ]);
  await drop(page, dt, () => snap(page, testInfo, 'drop-overlay'));

  const dialog = page.getByRole('dialog', { name: 'Import 2 files' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('listitem')).toHaveCount(2);
  await expect(dialog).toContainText('imported together');
  await expect(dialog.getByRole('radio', { name: /A new local instance/ })).toBeChecked();
  await dialog.getByRole('textbox', { name: 'Name of the new instance' }).fill(NAME);
  await expect(dialog.getByRole('combobox', { name: 'Kind of records' })).toHaveValue('');
  await expect(dialog.getByRole('checkbox', { name: 'Skip unknown fields' })).not.toBeChecked();
  await snap(page, testInfo, 'import-options');
  await watchPhases(page);
  await dialog.getByRole('button', { name: 'Import 2 files' }).click();

  const result = dialog.getByTestId('import-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  // The progress was on screen while it ran: the files prepared, sent, then the job's phases.
  const seen = await phases(page);
  expect(seen.some((p) => p.startsWith('Uploading'))).toBe(true);
  expect(seen.some((p) => /^(Starting|Reading and checking records|Building the search index|Checking references|Committing)/.test(p))).toBe(true);
  const total = 40 + records.length + assets.size + records.reduce((n, r) => n + (r.occurrences?.length ?? 0), 0);
  await expect(result).toContainText(`Imported into ${NAME}:`);
  const summary = dialog.getByTestId('import-summary');
  const row = (r: string) => summary.locator(`tr[data-resource="${r}"] td`);
  await expect(row('service_asset_findings').nth(0)).toHaveText(String(records.length));
  await expect(row('findings').nth(0)).toHaveText('40');
  await expect(row('service_assets').nth(0)).toHaveText(String(assets.size));
  for (const r of ['service_asset_findings', 'findings', 'service_assets']) {
    await expect(row(r).nth(1)).toHaveText('0');
    await expect(row(r).nth(2)).toHaveText('0');
  }
  await snap(page, testInfo, 'import-summary');

  // The server has the new instance, holding exactly the imported incidents.
  const list = await api<Inst[]>(served, 'GET', '/console/v1/instances');
  const inst = list.find((i) => i.name === NAME)!;
  expect(inst.kind).toBe('local');
  const there = await routed<{ items: { id: string; title: string }[]; total: number }>(served, inst.id, 'POST', '/cruddy/v2/service_asset_findings/search', {
    include_fields: ['id', 'title'],
    exclude_fields: [],
    filters: [],
    ordering: [{ field: 'title', direction: 'asc' }],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 1000,
    offset: 0,
  });
  expect(there.total).toBe(records.length);
  expect(there.items.map((i) => i.title)).toEqual(records.map((r) => r.title as string).sort((a, b) => (a < b ? -1 : 1)));
  expect(total).toBeGreaterThan(records.length);

  // The switcher lists it; switching shows its incidents in the table.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByRole('button', { name: /^Instance: / }).click();
  const option = page.getByRole('menu', { name: 'Instances' }).getByRole('menuitemradio', { name: new RegExp(NAME) });
  await expect(option).toBeVisible();
  await option.click();
  await expect(page.getByRole('button', { name: `Instance: ${NAME}` })).toBeVisible();
  await expect(page.getByTestId('total')).toHaveText(`${records.length} incidents`);
  await expect(loadedRows(page)).toHaveCount(records.length);
  const titles = await loadedRows(page).locator('.cell-title').allTextContents();
  expect(titles.sort()).toEqual(records.map((r) => r.title as string).sort());
  await snap(page, testInfo, 'new-instance-incidents');

  // Exports go to the instance shown: the new one answers its own incidents.
  await page.getByRole('button', { name: 'Export' }).click();
  const [own] = await Promise.all([page.waitForEvent('download'), page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^NDJSON/ }).click()]);
  const ownTitles = fs.readFileSync((await own.path())!, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { title: string }).title);
  expect(ownTitles.sort()).toEqual(records.map((r) => r.title as string).sort());

  // All instances: one export per local instance; a remote one is offered after a snapshot only.
  const remote = await api<{ id: string }>(served, 'POST', '/console/v1/instances', { kind: 'remote', name: 'Удалённый филиал', url: 'https://192.0.2.1:9000', api_key: 'k-123456789' });
  try {
    // The list's address names its instance: the switcher chooses them all.
    await page.reload();
    await page.getByRole('button', { name: /^Instance: / }).click();
    await page.getByRole('menu', { name: 'Instances' }).getByRole('menuitemradio', { name: /All instances/ }).click();
    await expect(page.getByRole('button', { name: 'Instance: All instances' })).toBeVisible();
    await page.getByRole('button', { name: 'Export' }).click();
    const menu = page.getByRole('menu', { name: 'Export as' });
    await expect(menu).toContainText('All instances: one file per instance.');
    await expect(menu.getByRole('group')).toHaveCount(list.length + 1);
    const far = menu.getByRole('group', { name: 'Удалённый филиал' });
    await expect(far.getByRole('menuitem')).toHaveCount(3);
    for (const item of await far.getByRole('menuitem').all()) await expect(item).toBeDisabled();
    await snap(page, testInfo, 'export-menu-all-instances');
    const [fromNew] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: `NDJSON from ${NAME}` }).click()]);
    expect(fs.readFileSync((await fromNew.path())!, 'utf8').trim().split('\n')).toHaveLength(records.length);
    await expect(page.getByTestId('export-progress').filter({ hasText: fromNew.suggestedFilename() })).toHaveAttribute('data-state', 'done');
  } finally {
    await api(served, 'DELETE', `/console/v1/instances/${remote.id}`);
  }
});

test('the command palette imports through the file picker; the builders and a resource list export their requests', async ({ page, served }, testInfo) => {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  // Ctrl+K, "Import files…": the dialog asks for files; the picker's choice lands in it.
  await page.keyboard.press('Control+K');
  await page.getByRole('combobox', { name: 'Command palette' }).fill('Import files');
  await page.getByRole('option', { name: /Import files…/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a file' });
  await expect(dialog.getByRole('button', { name: 'Choose files…' })).toBeFocused();
  await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
  await page.getByTestId('import-file-input').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not data') },
    { name: 'rule_sets.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify([{ name: 'Набор из файла' }])) },
  ]);
  await expect(dialog.getByRole('listitem')).toHaveText([/rule_sets\.json/]);
  await expect(dialog.getByRole('alert')).toContainText('Not imported (not JSON, NDJSON, CSV or .zip): notes.txt');
  await dialog.getByRole('radio', { name: /An existing instance/ }).check();
  await dialog.getByRole('combobox', { name: 'Kind of records' }).selectOption('rule_sets');
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(dialog.getByTestId('import-summary').locator('tr[data-resource="rule_sets"] td').first()).toHaveText('1');
  await dialog.getByRole('button', { name: 'Close' }).click();
  const sets = await api<{ items: { name: string }[] }>(served, 'POST', '/cruddy/v2/rule_sets/search', {
    include_fields: ['name'],
    exclude_fields: [],
    filters: [{ field: 'name', filter_type: 'equal', value: 'Набор из файла' }],
    ordering: [],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 10,
    offset: 0,
  });
  expect(sets.items).toHaveLength(1);

  // The v2 builder: its page (limit 10), or every match.
  await page.goto(`${served.main}/#/search`);
  const form = page.getByRole('form', { name: 'Request' });
  await form.getByLabel('Resource').selectOption('findings');
  await form.getByLabel('limit').fill('10');
  await page.getByRole('button', { name: 'Export' }).click();
  let menu = page.getByRole('menu', { name: 'Export as' });
  await expect(menu.getByRole('menuitemcheckbox', { name: 'Every match (without limit and offset)' })).toHaveAttribute('aria-checked', 'true');
  const [all] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: /^JSON/ }).click()]);
  const allBody = JSON.parse(fs.readFileSync((await all.path())!, 'utf8')) as { items: unknown[]; total: number };
  expect(allBody.total).toBe(40);
  expect(allBody.items).toHaveLength(40);
  await page.getByRole('button', { name: 'Export' }).click();
  menu = page.getByRole('menu', { name: 'Export as' });
  await menu.getByRole('menuitemcheckbox').click();
  await expect(menu.getByRole('menuitemcheckbox')).toHaveAttribute('aria-checked', 'false');
  const [pageOnly] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: /^JSON/ }).click()]);
  expect((JSON.parse(fs.readFileSync((await pageOnly.path())!, 'utf8')) as { items: unknown[] }).items).toHaveLength(10);

  // The public API builder: the standard query, in the public shape (front_link included).
  await page.goto(`${served.main}/#/public`);
  await page.getByRole('textbox', { name: 'Query string' }).fill('status=eq,new&order=-risklevel');
  await page.getByRole('textbox', { name: 'Query string' }).blur();
  await expect(page.getByTestId('validity')).toContainText('Valid request');
  await page.getByRole('button', { name: 'Export' }).click();
  const [pub] = await Promise.all([page.waitForEvent('download'), page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^NDJSON/ }).click()]);
  expect(pub.suggestedFilename()).toMatch(/^incidents-.*\.ndjson$/);
  const pubRecs = fs.readFileSync((await pub.path())!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; front_link: string; risklevel: number });
  const pubApi = await api<{ objects: { id: string }[] }>(served, 'GET', '/data/public/api/v1/incidents?status=eq,new&order=-risklevel&per_page=1000');
  expect(pubRecs.map((r) => r.id)).toEqual(pubApi.objects.map((o) => o.id));
  expect(pubRecs[0]!.front_link).toContain(`/#/incidents/${pubRecs[0]!.id}`);

  // A resource list: its search and order.
  await page.goto(`${served.main}/#/r/findings`);
  await page.getByRole('searchbox', { name: 'Search records' }).fill('SSH');
  await page.getByRole('searchbox', { name: 'Search records' }).press('Enter');
  const expected = await api<{ items: { id: string }[]; total: number }>(served, 'POST', '/cruddy/v2/findings/search', {
    include_fields: ['id'],
    exclude_fields: [],
    filters: [],
    ordering: [{ field: 'created_at', direction: 'desc' }],
    virtual_search: { value: 'SSH', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 1000,
    offset: 0,
  });
  expect(expected.total).toBeGreaterThan(0);
  await expect(page.locator('.page-head .total')).toHaveText(expected.total === 1 ? '1 record' : `${expected.total} records`);
  await page.getByRole('button', { name: 'Export' }).click();
  const [res] = await Promise.all([page.waitForEvent('download'), page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^NDJSON/ }).click()]);
  expect(fs.readFileSync((await res.path())!, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(expected.items.map((i) => i.id));
  await snap(page, testInfo, 'resource-list-export');
});

test('a malformed file is refused with its file, position and reason, and the instance is left as it was', async ({ page, served }, testInfo) => {
  const before = await incidents(served);
  const three = before.items.slice(0, 3);
  // Two good records with new titles, then one whose risk level is out of range.
  const text = [
    JSON.stringify({ ...three[0], title: 'Не должно записаться 1' }),
    JSON.stringify({ ...three[1], title: 'Не должно записаться 2' }),
    JSON.stringify({ ...three[2], risklevel: 42 }),
  ].join('\n');
  // What the server says about this file.
  const direct = await fetch(`${served.main}/console/v1/import?filename=broken.ndjson&wait=1`, { method: 'POST', headers: { PgrApiKey: served.apiKey }, body: text });
  expect(direct.status).toBe(400);
  const refusal = ((await direct.json()) as { error: string }).error;
  expect(refusal).toMatch(/^broken\.ndjson:3: .*field risklevel: /);

  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  await drop(page, await filesHandle(page, [{ name: 'broken.ndjson', text, type: 'application/x-ndjson' }]));
  const dialog = page.getByRole('dialog', { name: 'Import a file' });
  await dialog.getByRole('radio', { name: /An existing instance/ }).check();
  await expect(dialog.getByRole('combobox', { name: 'Instance to import into' })).toHaveValue('main');
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();

  const error = dialog.getByTestId('import-error');
  await expect(error).toBeVisible();
  await expect(error).toHaveAttribute('role', 'alert');
  await expect(error).toContainText('The file was refused.');
  await expect(error).toContainText('Nothing was written: the instance is as it was.');
  await expect(error.getByTestId('error-file')).toHaveText('broken.ndjson');
  await expect(error.getByTestId('error-position')).toHaveText('line 3');
  await expect(error.getByTestId('error-field')).toHaveText('risklevel');
  const reason = refusal.slice(refusal.indexOf('field risklevel: ') + 'field risklevel: '.length);
  await expect(error.getByTestId('error-reason')).toHaveText(reason);
  await snap(page, testInfo, 'import-refused');

  // Nothing changed: the same incidents, with their own titles.
  const after = await incidents(served);
  expect(after.total).toBe(before.total);
  expect(after.items.slice(0, 3).map((i) => i.title)).toEqual(three.map((i) => i.title));
  expect(after.items).toEqual(before.items);

  // "Change the options" goes back to them, the file still chosen.
  await dialog.getByRole('button', { name: 'Change the options' }).click();
  await expect(dialog.getByRole('listitem')).toHaveText(/broken\.ndjson/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
});

test('cancelling a large import leaves nothing written', async ({ page, served }, testInfo) => {
  test.setTimeout(120_000);
  const before = await incidents(served);
  const template = before.items[0]!;
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  // A few hundred thousand incidents, made in the page.
  const N = 300_000;
  const dt = await page.evaluateHandle(
    ({ n, t }) => {
      const lines: string[] = new Array(n);
      for (let i = 0; i < n; i++) {
        lines[i] = JSON.stringify({ id: crypto.randomUUID(), title: `Массовый импорт ${i}`, status: 'new', risklevel: (i % 100) / 10, service_asset_id: t.service_asset_id, finding_id: t.finding_id });
      }
      const dt = new DataTransfer();
      dt.items.add(new File([lines.join('\n')], 'incidents-bulk.ndjson', { type: 'application/x-ndjson' }));
      return dt;
    },
    { n: N, t: { service_asset_id: template.service_asset_id, finding_id: template.finding_id } },
  );
  await drop(page, dt);
  const dialog = page.getByRole('dialog', { name: 'Import a file' });
  await dialog.getByRole('radio', { name: /An existing instance/ }).check();
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();

  // The job's progress: records, bytes of the total, rate, time left, phase.
  await expect(dialog.getByTestId('import-phase')).toContainText('Reading and checking records', { timeout: 30_000 });
  await expect.poll(async () => Number((await dialog.getByTestId('import-records').textContent())!.replace(/\D/g, '')), { timeout: 30_000 }).toBeGreaterThan(2000);
  await expect(dialog.getByTestId('import-bytes')).toHaveText(/^[\d.,]+ (kB|MB) of [\d.,]+ MB$/);
  await expect(dialog.getByTestId('import-rate')).toHaveText(/^[\d,]+ records\/s$/);
  await expect(dialog.getByTestId('import-eta')).toHaveText(/\d+ (sec|min)/);
  const bar = dialog.getByRole('progressbar', { name: 'Import progress' });
  await expect.poll(async () => Number(await bar.evaluate((e) => (e as HTMLProgressElement).value))).toBeGreaterThan(0);
  await snap(page, testInfo, 'import-progress');

  await dialog.getByRole('button', { name: 'Cancel import' }).click();
  const done = dialog.getByTestId('import-cancelled');
  await expect(done).toBeVisible({ timeout: 30_000 });
  await expect(done).toContainText('Import cancelled.');
  await expect(done).toContainText('Nothing was written: the instance is as it was.');
  await snap(page, testInfo, 'import-cancelled');

  const jobs = await api<{ type: string; state: string; progress: { records: number } }[]>(served, 'GET', '/console/v1/jobs');
  expect(jobs[0]).toMatchObject({ type: 'import', state: 'cancelled' });
  expect(jobs[0]!.progress.records).toBeGreaterThan(0);
  expect(jobs[0]!.progress.records).toBeLessThan(N);
  const after = await incidents(served);
  expect(after.total).toBe(before.total);
  expect(after.items).toEqual(before.items);
  const bulk = await incidents(served, [{ field: 'title', filter_type: 'substr', value: 'Массовый импорт' }]);
  expect(bulk.total).toBe(0);
});

test('cancelling while the file is still being sent: the upload is aborted, no job starts, nothing is written', async ({ page, served }, testInfo) => {
  const before = await incidents(served);
  const jobsBefore = (await api<{ id: string }[]>(served, 'GET', '/console/v1/jobs')).map((j) => j.id);
  const text = before.items
    .slice(0, 5)
    .map((i) => JSON.stringify({ ...i, title: `Не дошло: ${i.title}` }))
    .join('\n');
  // The upload is held on its way (a slow link) until the test lets it go, so Cancel meets it in flight.
  let arrived!: () => void;
  const seen = new Promise<void>((r) => (arrived = r));
  let letGo!: () => void;
  const held = new Promise<void>((r) => (letGo = r));
  let passed: Promise<void> | undefined;
  await page.route('**/console/v1/import?*', async (route) => {
    arrived();
    passed = held.then(() => route.continue().catch(() => {}));
    await passed;
  });
  const failed = page.waitForEvent('requestfailed', (r) => r.url().includes('/console/v1/import?'));
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  await drop(page, await filesHandle(page, [{ name: 'incidents.ndjson', text, type: 'application/x-ndjson' }]));
  const dialog = page.getByRole('dialog', { name: 'Import a file' });
  await dialog.getByRole('radio', { name: /An existing instance/ }).check();
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await seen;
  await expect(dialog.getByTestId('import-phase')).toContainText('Uploading');
  await snap(page, testInfo, 'import-uploading');
  await dialog.getByRole('button', { name: 'Cancel import' }).click();
  await expect(dialog.getByTestId('import-cancelled')).toContainText('Nothing was written: the instance is as it was.');
  // The browser gave the upload up; let go, it goes nowhere.
  await failed;
  letGo();
  await passed;
  const jobs = (await api<{ id: string }[]>(served, 'GET', '/console/v1/jobs')).filter((j) => !jobsBefore.includes(j.id));
  expect(jobs).toEqual([]);
  expect((await incidents(served)).items).toEqual(before.items);
});

/** Filters the table to new incidents matching `text`, ordered by risk (highest first). */
async function filterAndSort(page: Page, statusName: RegExp, search: { label: string; text: string }, riskHeader: string) {
  await page.getByRole('button', { name: statusName }).first().click();
  await page.getByRole('searchbox', { name: search.label }).fill(search.text);
  await page.getByRole('searchbox', { name: search.label }).press('Enter');
  await page.getByRole('columnheader', { name: riskHeader }).getByRole('button').click();
  await expect(page.getByRole('columnheader', { name: riskHeader })).toHaveAttribute('aria-sort', 'descending');
}

const expectedFilter = (text: string) => ({
  filters: [{ field: 'status', filter_type: 'intersection', value: ['new'] }],
  extra: { ordering: [{ field: 'risklevel', direction: 'desc' }], virtual_search: { value: text, strict: false } },
});

test('export of the filtered incident table as NDJSON and CSV equals what the API answers for the same request', async ({ page, served }, testInfo) => {
  const SEARCH = 'ws-';
  const q = expectedFilter(SEARCH);
  const expected = await incidents(served, q.filters, q.extra);
  expect(expected.total).toBeGreaterThan(1);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible();
  await filterAndSort(page, /^New/, { label: 'Search incidents', text: SEARCH }, 'Risk');
  await expect(page.getByTestId('total')).toHaveText(`${expected.total} incidents`);

  // NDJSON: every matching record, whole, in the table's order.
  await page.getByRole('button', { name: 'Export' }).click();
  const menu = page.getByRole('menu', { name: 'Export as' });
  await expect(menu.getByRole('menuitem')).toHaveCount(3);
  await snap(page, testInfo, 'export-menu');
  const [nd] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: /^NDJSON/ }).click()]);
  expect(nd.suggestedFilename()).toMatch(/^service_asset_findings-\d{8}T\d{6}Z\.ndjson$/);
  const ndText = fs.readFileSync((await nd.path())!, 'utf8');
  const recs = ndText.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(recs.map((r) => r.id)).toEqual(expected.items.map((i) => i.id));
  const full = await api<{ items: Record<string, unknown>[] }>(served, 'POST', '/cruddy/v2/service_asset_findings/search', {
    include_fields: [],
    exclude_fields: [],
    filters: q.filters,
    ordering: q.extra.ordering,
    virtual_search: q.extra.virtual_search,
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 10000,
    offset: 0,
  });
  expect(recs).toEqual(full.items);
  const progress = page.getByTestId('export-progress').filter({ hasText: nd.suggestedFilename() });
  await expect(progress).toHaveAttribute('data-state', 'done');
  await expect(progress.getByTestId('export-numbers')).toHaveText(new RegExp(`^${expected.total} of ${expected.total} rows · `));

  // CSV: the columns on screen by default, one row per match in the same order.
  await page.getByRole('button', { name: 'Export' }).click();
  await page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^CSV/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Export Incidents as CSV' });
  await expect(dialog).toBeVisible();
  const checked = await dialog.getByRole('group', { name: 'Columns' }).getByRole('checkbox', { checked: true }).evaluateAll((els) => els.map((e) => e.closest('label')!.querySelector('.mono')?.textContent ?? ''));
  const columns = ['display_id', 'title', 'status', 'risklevel', 'service_asset_id', 'user_id', 'created_at'];
  expect(checked).toEqual(columns);
  await expect(dialog.getByRole('combobox', { name: 'Separator' })).toHaveValue(',');
  // Names beside ids are on by default: the asset's name follows its id, as the list shows it.
  await expect(dialog.getByRole('checkbox', { name: 'Names beside ids' })).toBeChecked();
  await snap(page, testInfo, 'export-csv-dialog');
  const [csvDl] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: `Export ${columns.length} columns` }).click()]);
  expect(csvDl.suggestedFilename()).toMatch(/^service_asset_findings-\d{8}T\d{6}Z\.csv$/);
  const csv = fs.readFileSync((await csvDl.path())!, 'utf8');
  expect(csv.startsWith('\ufeff')).toBe(true);
  const rows = parseCsv(csv.slice(1), ',');
  const named = ['display_id', 'title', 'status', 'risklevel', 'service_asset_id', 'service_asset_name', 'user_id', 'user_short_name', 'created_at'];
  expect(rows[0]).toEqual(named);
  const assets = await api<{ items: { id: string; name: string }[] }>(served, 'POST', '/cruddy/v2/service_assets/search', {
    include_fields: ['id', 'name'],
    exclude_fields: [],
    filters: [],
    ordering: [],
    virtual_search: { value: '', strict: false },
    extension_params: { chidlrens_all: false, parents_all: false },
    relations: [],
    limit: 10000,
    offset: 0,
  });
  const assetName = new Map(assets.items.map((a) => [a.id, a.name]));
  // The owner's name comes from the people directory: present wherever there is an owner.
  const ownerName = named.indexOf('user_short_name');
  const withoutOwnerName = (r: string[]) => r.filter((_, i) => i !== ownerName);
  expect(rows.slice(1).map(withoutOwnerName)).toEqual(
    full.items.map((it) => withoutOwnerName(named.map((c) => (c === 'service_asset_name' ? csvCell(assetName.get(it.service_asset_id as string) ?? null) : c === 'user_short_name' ? '' : csvCell(it[c]))))),
  );
  for (const [i, it] of full.items.entries()) expect(rows[i + 1]![ownerName] !== '', `owner name of row ${i + 1}`).toBe(it.user_id != null);
  // The same rows on screen: the Asset column shows these names.
  const shown = await loadedRows(page).first().locator('td').allInnerTexts();
  expect(shown.some((t) => t.trim() === rows[1]![5])).toBe(true);
  await expect(page.getByTestId('export-progress').filter({ hasText: csvDl.suggestedFilename() })).toHaveAttribute('data-state', 'done');
  await snap(page, testInfo, 'export-done');
});

test.describe('in Russian', () => {
  test.use({ locale: 'ru-RU' });

  test('the same export in the Russian console: CSV with semicolons, NDJSON, equal to the API', async ({ page, served }, testInfo) => {
    const SEARCH = 'ws-';
    const q = expectedFilter(SEARCH);
    const expected = await incidents(served, q.filters, q.extra);
    await openConsole(page, served);
    await expect(loadedRows(page, 'Инциденты').first()).toBeVisible();
    await filterAndSort(page, /^Новый/, { label: 'Поиск инцидентов', text: SEARCH }, 'Риск');
    await expect(page.getByTestId('total')).toContainText(String(expected.total));

    await page.getByRole('button', { name: 'Выгрузить' }).click();
    const menu = page.getByRole('menu', { name: 'Выгрузить как' });
    await expect(menu.getByRole('menuitem', { name: /^JSON/ })).toContainText('в формате ответа API');
    const [js] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: /^JSON/ }).click()]);
    const body = JSON.parse(fs.readFileSync((await js.path())!, 'utf8')) as { items: { id: string }[]; total: number };
    expect(body.total).toBe(expected.total);
    expect(body.items.map((i) => i.id)).toEqual(expected.items.map((i) => i.id));
    await expect(page.getByTestId('export-progress').filter({ hasText: js.suggestedFilename() })).toContainText(`${expected.total} из ${expected.total}`);

    await page.getByRole('button', { name: 'Выгрузить' }).click();
    await page.getByRole('menu', { name: 'Выгрузить как' }).getByRole('menuitem', { name: /^CSV/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Выгрузка в CSV: Инциденты' });
    await expect(dialog.getByRole('combobox', { name: 'Разделитель' })).toHaveValue(';');
    // Only the number, title and status.
    await dialog.getByRole('button', { name: 'Ни одного' }).click();
    for (const name of ['Номер', 'Название', 'Статус']) await dialog.getByRole('checkbox', { name: new RegExp(`^${name}`) }).check();
    await snap(page, testInfo, 'export-csv-dialog-ru');
    const [csvDl] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Выгрузить 3 столбца' }).click()]);
    const csv = fs.readFileSync((await csvDl.path())!, 'utf8');
    const rows = parseCsv(csv.replace(/^\ufeff/, ''), ';');
    expect(rows[0]).toEqual(['display_id', 'title', 'status']);
    expect(rows.slice(1)).toEqual(expected.items.map((it) => [String(it.display_id), csvCell(it.title), it.status]));
    await expect(page.getByTestId('export-progress').filter({ hasText: csvDl.suggestedFilename() })).toContainText('Сохранено');
    await snap(page, testInfo, 'export-done-ru');
  });
});

// The import and export surfaces at 1280x800, light and dark, English and Russian: the header
// still fits on one line beside "Import…", dialogs and menus stay inside the window without
// horizontal overflow; the screenshots are kept to be looked at.
const looks = [
  { theme: 'light', locale: 'en-GB', table: 'Incidents', importName: /^Import/, exportName: 'Export', menu: 'Export as', csv: /^CSV/ },
  { theme: 'dark', locale: 'en-GB', table: 'Incidents', importName: /^Import/, exportName: 'Export', menu: 'Export as', csv: /^CSV/ },
  { theme: 'light', locale: 'ru-RU', table: 'Инциденты', importName: /^Импорт/, exportName: 'Выгрузить', menu: 'Выгрузить как', csv: /^CSV/ },
  { theme: 'dark', locale: 'ru-RU', table: 'Инциденты', importName: /^Импорт/, exportName: 'Выгрузить', menu: 'Выгрузить как', csv: /^CSV/ },
] as const;

for (const c of looks) {
  test.describe(`look, ${c.theme}, ${c.locale}`, { tag: LOOK }, () => {
    test.use({ colorScheme: c.theme, locale: c.locale });

    test('import dialog, its summary, the export menu and the CSV dialog fit the window', async ({ page, served }, testInfo) => {
      const tag = `${c.theme}-${c.locale}`;
      await openConsole(page, served);
      await expect(loadedRows(page, c.table).first()).toBeVisible();
      await expect(page.locator('html')).toHaveAttribute('data-theme', c.theme);
      // The header: one line, its last control inside the window.
      const header = await page.evaluate(() => {
        const bar = document.querySelector('.topbar')!;
        const last = [...bar.children].at(-1)!.getBoundingClientRect();
        return { height: bar.getBoundingClientRect().height, overflow: bar.scrollWidth - bar.clientWidth, right: last.right, width: window.innerWidth };
      });
      expect(header.height).toBeLessThanOrEqual(43);
      expect(header.overflow).toBeLessThanOrEqual(0);
      expect(header.right).toBeLessThanOrEqual(header.width);
      const fits = (sel: string) =>
        page.evaluate((s) => {
          const el = document.querySelector(s)!;
          const r = el.getBoundingClientRect();
          const inner = [...el.querySelectorAll('*')].every((x) => x.scrollWidth <= x.clientWidth + 1 || getComputedStyle(x).overflowX !== 'visible' || x.clientWidth === 0);
          return r.left >= 0 && r.top >= 0 && r.right <= window.innerWidth && r.bottom <= window.innerHeight && el.scrollWidth <= el.clientWidth + 1 && inner;
        }, sel);

      const findings = await exported(served, { resource: 'findings', format: 'ndjson', search: { limit: 5 } });
      await drop(page, await filesHandle(page, [{ name: `findings-${tag}.ndjson`, text: findings, type: 'application/x-ndjson' }]), () => snap(page, testInfo, `look-drop-${tag}`));
      const dialog = page.getByRole('dialog');
      await expect(dialog).toBeVisible();
      expect(await fits('dialog.dialog')).toBe(true);
      await snap(page, testInfo, `look-import-options-${tag}`);
      await dialog.getByRole('button', { name: c.importName }).click();
      await expect(dialog.getByTestId('import-result')).toBeVisible();
      expect(await fits('dialog.dialog')).toBe(true);
      await snap(page, testInfo, `look-import-summary-${tag}`);
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);

      await page.getByRole('button', { name: c.exportName }).click();
      await expect(page.getByRole('menu', { name: c.menu })).toBeVisible();
      expect(await fits('.export-popover')).toBe(true);
      await snap(page, testInfo, `look-export-menu-${tag}`);
      await page.getByRole('menu', { name: c.menu }).getByRole('menuitem', { name: c.csv }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      expect(await fits('dialog.dialog')).toBe(true);
      await snap(page, testInfo, `look-export-csv-${tag}`);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);
      // The focus is back on the page (the menu's button was the last thing focused).
      expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('DIALOG');
    });
  });
}
