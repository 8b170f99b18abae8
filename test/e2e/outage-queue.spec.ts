// Work survives an outage: a status change (with its comment) and a risk change made while the
// server is stopped are kept as waiting (on the rows, in the header, in the list of waiting
// changes), survive a reload, and are sent once when the server is back on the same port:
// checked through the API, status-change rows and messages counted. A request whose answer is
// lost is not applied twice. The instance switcher says what the banner says.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emptySearch } from '../../src-shared/schemas/search';
import { api, expect, incidents, loadedRows, openConsole, snap, startServe, test, type Served } from './fixtures';

/** The requests that send a change: mass_update, and a status with its reason in one operation. */
const SENDS = /\/(service_asset_findings\/mass_update|console\/v1\/incidents\/status)(\?|$)/;

test.use({ viewport: { width: 1440, height: 900 } });

async function statusRows(s: Served, id: string, status: string): Promise<{ id: string }[]> {
  const r = await api<{ items: { id: string }[] }>(s, 'POST', '/cruddy/v2/service_asset_finding_status_changes/search', {
    ...emptySearch(100),
    filters: [
      { field: 'service_asset_finding_id', filter_type: 'equal', value: id },
      { field: 'status', filter_type: 'equal', value: status },
    ],
  });
  return r.items;
}

async function messagesOf(s: Served, id: string): Promise<{ subject: string; body: string; service_asset_finding_status_change_id: string | null }[]> {
  const r = await api<{ items: { subject: string; body: string; service_asset_finding_status_change_id: string | null }[] }>(s, 'POST', '/cruddy/v2/messages/search', {
    ...emptySearch(200),
    filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: id }],
  });
  return r.items;
}

const looks = [
  { locale: 'en-GB', theme: 'light', table: 'Incidents', statusDialog: /^Change the status/, riskDialog: /^Change the risk level/, waiting: /^2 waiting$/, sent: /2 waiting changes sent/, instance: /^Instance: /, down: /^not answering/, up: /^answering/ },
  { locale: 'ru-RU', theme: 'dark', table: 'Инциденты', statusDialog: /^Изменить статус/, riskDialog: /^Изменить уровень риска/, waiting: /^2 ожидают$/, sent: /2 ожидавших изменения отправлены/, instance: /^Инсталляция: /, down: /^не отвечает/, up: /^отвечает/ },
] as const;

for (const c of looks) {
  test.describe(`outage queue, ${c.locale}, ${c.theme}`, () => {
    test.use({ locale: c.locale, colorScheme: c.theme });

    test('changes made while the server is stopped wait, survive a reload and are sent once after it restarts', async ({ page }, testInfo) => {
      test.setTimeout(180_000);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-queue-'));
      const db = path.join(dir, 'queue.sqlite');
      const key = crypto.randomBytes(16).toString('hex');
      let s = await startServe(['--api-key', key], db);
      const port = new URL(s.main).port;
      try {
        const list = (await incidents(s)).items;
        const [a, b] = [list[0]!, list[1]!];
        const target = a.status === 'working_customer' ? 'feedback_required' : 'working_customer';
        const targetKey = target === 'working_customer' ? '3' : '4';
        const rowsBefore = (await statusRows(s, a.id, target)).length;
        const messagesBefore = (await messagesOf(s, a.id)).length;

        await page.goto(`${s.main}/#key=${key}`);
        await expect(loadedRows(page, c.table).first()).toBeVisible();
        await s.stop();
        await expect(page.getByTestId('outage')).toBeVisible({ timeout: 15_000 });
        // The switcher says what the banner says.
        await expect(page.getByRole('button', { name: c.instance })).toHaveAttribute('data-health', 'down');
        await expect(page.getByRole('button', { name: c.instance }).getByRole('img')).toHaveAccessibleName(c.down);

        // A status change with a comment on the first row, typed from the keyboard alone.
        await page.getByTestId('incidents-scroll').focus();
        await page.keyboard.press('s');
        const statusDialog = page.getByRole('dialog', { name: c.statusDialog });
        await expect(statusDialog).toBeVisible();
        await page.keyboard.press(targetKey);
        // The status's number moves the keyboard to the comment.
        await expect(statusDialog.locator('textarea')).toBeFocused();
        await page.keyboard.type('Checked on the host while the server was down');
        await page.keyboard.press('Control+Enter');
        await expect(statusDialog).toHaveCount(0);
        await page.getByTestId('held-change').getByRole('button').nth(1).click();
        await expect(page.getByTestId('change-result')).toBeVisible();

        // A risk change on the second row.
        await page.keyboard.press('j');
        await page.keyboard.press('r');
        const riskDialog = page.getByRole('dialog', { name: c.riskDialog });
        await riskDialog.getByRole('textbox').fill('2.5');
        await page.keyboard.press('Control+Enter');
        await page.getByTestId('held-change').getByRole('button').nth(1).click();
        const queueButton = page.getByTestId('queue-button');
        await expect(queueButton).toHaveText(c.waiting);
        await expect(loadedRows(page, c.table).nth(0).getByTestId('queued-mark')).toHaveAttribute('data-state', 'waiting');
        await expect(loadedRows(page, c.table).nth(1).getByTestId('queued-mark')).toHaveAttribute('data-state', 'waiting');
        await expect(loadedRows(page, c.table).nth(0).locator('[data-status]')).toHaveAttribute('data-status', target);
        await expect(page.getByTestId('banner-queue')).toBeVisible();
        // The list's status line keeps every piece inside it (a long "not updated" text is cut, not spilled).
        const spilled = await page.locator('.selection-bar').evaluate((bar) => {
          const b = bar.getBoundingClientRect();
          return [...bar.querySelectorAll<HTMLElement>(':scope > *')].filter((el) => {
            const r = el.getBoundingClientRect();
            return r.height > 0 && (r.top < b.top - 1 || r.bottom > b.bottom + 1 || el.scrollHeight > el.clientHeight + 1);
          }).map((el) => el.textContent);
        });
        expect(spilled).toEqual([]);
        await snap(page, testInfo, `queue-waiting-${c.locale}`);
        await queueButton.click();
        const queueDialog = page.getByRole('dialog').filter({ has: page.getByTestId('queue-entry') });
        await expect(queueDialog.getByTestId('queue-entry')).toHaveCount(2);
        await snap(page, testInfo, `queue-list-${c.locale}`);
        await page.keyboard.press('Escape');

        // A reload keeps them: the page goes away (while the server is stopped it cannot load at
        // all), and the console comes back once the server is on the same port again. Its sends
        // are held at the door until the reloaded page has been looked at.
        await page.reload().catch(() => {});
        let release = () => {};
        const gate = new Promise<void>((r) => (release = r));
        await page.route(SENDS, async (route) => {
          await gate;
          await route.continue();
        });
        s = await startServe(['--api-key', key, '--port', port], db);
        await page.goto(`${s.main}/`);
        await expect(page.getByTestId('queue-button')).toHaveText(c.waiting, { timeout: 15_000 });
        await expect(loadedRows(page, c.table).first()).toBeVisible();
        await expect(loadedRows(page, c.table).nth(0).getByTestId('queued-mark')).toBeVisible();
        await expect(loadedRows(page, c.table).nth(0).locator('[data-status]')).toHaveAttribute('data-status', target);
        release();
        await expect(page.getByTestId('queue-button')).toHaveCount(0, { timeout: 30_000 });
        await expect(page.getByRole('status').filter({ hasText: c.sent })).toBeVisible();
        // No notice still says a change waits.
        await expect(page.getByTestId('change-result')).toHaveCount(0);
        await expect(page.getByRole('button', { name: c.instance })).toHaveAttribute('data-health', 'ok', { timeout: 15_000 });
        await expect(page.getByRole('button', { name: c.instance }).getByRole('img')).toHaveAccessibleName(c.up);
        const after = new Map((await incidents(s, [{ field: 'id', filter_type: 'intersection', value: [a.id, b.id] }])).items.map((i) => [i.id, i]));
        expect(after.get(a.id)!.status).toBe(target);
        expect(after.get(b.id)!.risklevel).toBe(2.5);
        const rows = await statusRows(s, a.id, target);
        expect(rows.length).toBe(rowsBefore + 1);
        const notes = (await messagesOf(s, a.id)).filter((m) => m.body === 'Checked on the host while the server was down');
        expect(notes).toHaveLength(1);
        expect(rows.map((r) => r.id)).toContain(notes[0]!.service_asset_finding_status_change_id);
        expect((await messagesOf(s, a.id)).length).toBe(messagesBefore + 1);
        await expect(loadedRows(page, c.table).first()).toBeVisible();
        await expect(page.getByTestId('queued-mark')).toHaveCount(0);
      } finally {
        await s.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

test('a change whose answer is lost is kept waiting and, once checked against the incident, not applied twice', async ({ page }) => {
  test.setTimeout(120_000);
  const s = await startServe();
  try {
    const list = (await incidents(s, [{ field: 'status', filter_type: 'intersection', value: ['new'] }])).items;
    const a = list[0]!;
    await openConsole(page, s, '#/incidents?status=new');
    await expect(loadedRows(page).first()).toBeVisible();
    // The server applies the change; its answer never reaches the page.
    await page.route(SENDS, async (route) => {
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('s');
    const dialog = page.getByRole('dialog', { name: /^Change the status/ });
    await page.keyboard.press('7');
    await dialog.getByRole('combobox').selectOption({ index: 1 });
    await dialog.locator('textarea').fill('Lost answer');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button').nth(1).click();
    await expect(page.getByTestId('change-result')).toContainText('waits for its instance', { timeout: 15_000 });
    await page.unroute(SENDS);
    // Sent again once it answers: the incident already has the status, so nothing is applied twice.
    await expect(page.getByTestId('queue-button')).toHaveCount(0, { timeout: 30_000 });
    // The notice that said it waits goes once it is sent.
    await expect(page.getByTestId('change-result')).toHaveCount(0);
    const now = (await incidents(s, [{ field: 'id', filter_type: 'equal', value: a.id }])).items[0]!;
    expect(now.status).toBe('closed');
    expect(await statusRows(s, a.id, 'closed')).toHaveLength(1);
    expect((await messagesOf(s, a.id)).filter((m) => m.body === 'Lost answer')).toHaveLength(1);
  } finally {
    await s.stop();
  }
});
