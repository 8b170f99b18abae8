// WCAG 2.1 AA with axe-core in Chromium over the console's main screens, in light and dark:
// no violation of impact serious or critical anywhere, and none of impact moderate on the
// list, the detail panel, the dialogs, both builders, the changes and the resources screens.
// Each screen is scanned in the light theme with every rule, then switched to the dark theme
// (the console follows the system's scheme as it changes) and scanned again with the rules a
// theme can change: the colours. Structure, names and roles do not depend on the theme.
import AxeBuilder from '@axe-core/playwright';
import type { Page, TestInfo } from '@playwright/test';
import { expect, loadedRows, openConsole, test } from './fixtures';

// WCAG 2.1 A and AA, and axe's best practices (one level-1 heading, headings in order, landmarks).
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

type Finding = { screen: string; id: string; impact: string; nodes: string[] };

// The rules whose outcome depends on the colours shown.
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

async function scanOne(page: Page, screen: string, found: Finding[], rules?: string[]): Promise<void> {
  // The console has no transitions, and its animations stand still under reduced motion
  // (playwright.config.ts): the colours measured are the ones shown. The page has no frames:
  // axe runs in it directly (one injection, no blank page to merge the frames' results in).
  const builder = new AxeBuilder({ page }).setLegacyMode(true);
  const r = await (rules ? builder.withRules(rules) : builder.withTags(TAGS)).analyze();
  found.push(...r.violations.map((v) => ({ screen, id: v.id, impact: v.impact ?? 'unknown', nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`) })));
}

/** The screen in the light theme with every rule, then in the dark theme with the colour rules; back to light. */
async function scan(page: Page, screen: string, found: Finding[]): Promise<void> {
  await scanOne(page, `${screen}, light`, found);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await scanOne(page, `${screen}, dark`, found, COLOUR_RULES);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
}

/** Every finding (minor ones too) is kept in the test's output; the serious, critical and moderate ones fail it. */
async function verdict(found: Finding[], testInfo: TestInfo): Promise<void> {
  await testInfo.attach('axe-violations', { body: JSON.stringify(found, null, 1), contentType: 'application/json' });
  const bad = found.filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.impact === 'moderate');
  expect(bad, JSON.stringify(bad, null, 1)).toEqual([]);
}

async function openList(page: Page, served: Parameters<typeof openConsole>[1]): Promise<void> {
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('.chart-status svg[role="application"]')).toBeVisible({ timeout: 30_000 });
}

test.describe('accessibility, light and dark', () => {
  // The screens are independent: each test may run on its own worker (with its own server).
  test.describe.configure({ mode: 'parallel' });
  test.use({ colorScheme: 'light', viewport: { width: 1440, height: 900 } });

  test('the list and the detail panel', async ({ page, served }, testInfo) => {
    test.setTimeout(300_000);
    const found: Finding[] = [];
    await openList(page, served);
    await scan(page, 'list', found);
    // A focused and selected row (badges on a tinted row), then the incident open.
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.keyboard.press('Enter');
    const detail = page.getByRole('complementary');
    await expect(detail.locator('dl.kv')).toBeVisible({ timeout: 30_000 });
    await scan(page, 'list with a row selected, detail', found);
    await detail.getByRole('tab', { name: /^Timeline/ }).click();
    await expect(detail.getByTestId('timeline')).toBeVisible();
    await scan(page, 'detail, timeline', found);
    await verdict(found, testInfo);
  });

  test('the dialogs, the palette and the grouped list', async ({ page, served }, testInfo) => {
    test.setTimeout(300_000);
    const found: Finding[] = [];
    await openList(page, served);
    for (const [key, name] of [
      ['s', 'status dialog'],
      ['r', 'risk dialog'],
      ['Shift+A', 'assign dialog'],
    ] as const) {
      await page.getByTestId('incidents-scroll').focus();
      await page.keyboard.press(key);
      await expect(page.getByRole('dialog')).toBeVisible();
      await scan(page, name, found);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);
    }
    await page.getByRole('button', { name: /^Views/ }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await scan(page, 'views dialog', found);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+k');
    await expect(page.getByRole('dialog', { name: 'Command palette' })).toBeVisible();
    await scan(page, 'palette', found);
    await page.keyboard.press('Escape');
    await page.locator('select[aria-label="Group by"]').selectOption('service_asset_id');
    await expect(page.getByTestId('group').first()).toBeVisible({ timeout: 30_000 });
    await scan(page, 'grouped list', found);
    await verdict(found, testInfo);
  });

  test('the new states: a change waiting for its instance, the list of waiting changes, a stale range, pivots, the CSV dialog', async ({ page, served }, testInfo) => {
    test.setTimeout(300_000);
    const found: Finding[] = [];
    await openList(page, served);
    // A change whose request gets no answer waits, listed and marked on its row.
    await page.route('**/service_asset_findings/mass_update', (route) => route.abort('connectionrefused'));
    await page.getByTestId('incidents-scroll').focus();
    await page.keyboard.press('r');
    await page.getByRole('dialog', { name: /^Change the risk level/ }).getByRole('textbox').fill('3.3');
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('held-change').getByRole('button', { name: 'Send the change now' }).click();
    await expect(page.getByTestId('queue-button')).toBeVisible({ timeout: 30_000 });
    await scan(page, 'list with a waiting change', found);
    await page.getByTestId('queue-button').click();
    await expect(page.getByTestId('queue-entry').first()).toBeVisible();
    await scan(page, 'waiting changes', found);
    await page.keyboard.press('Escape');
    await page.unroute('**/service_asset_findings/mass_update');
    await expect(page.getByTestId('queue-button')).toHaveCount(0, { timeout: 30_000 });
    // An empty relative range on stale data.
    await page.goto(`${served.main}/#/incidents?range=24h`);
    await expect(page.getByTestId('empty-range')).toBeVisible({ timeout: 30_000 });
    await scan(page, 'stale range', found);
    // A pivot from the detail panel.
    await page.goto(`${served.main}/#/incidents`);
    await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
    await loadedRows(page).first().click();
    await page.getByRole('complementary').getByTestId('pivot-in-asset').click();
    await expect(page.getByTestId('pivot-bar')).toBeVisible();
    await expect(loadedRows(page).first()).toBeVisible({ timeout: 30_000 });
    await scan(page, 'pivot', found);
    await page.getByRole('button', { name: 'Export' }).click();
    await page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^CSV/ }).click();
    await expect(page.getByRole('dialog', { name: /as CSV$/ })).toBeVisible();
    await scan(page, 'CSV dialog', found);
    await page.keyboard.press('Escape');
    await verdict(found, testInfo);
  });

  test('the builders, the changes and the resources', async ({ page, served }, testInfo) => {
    test.setTimeout(300_000);
    const found: Finding[] = [];
    await openList(page, served);
    for (const [hash, screen, ready] of [
      ['#/search', 'search builder', 'form'],
      ['#/public', 'public API builder', 'form'],
      ['#/changes', 'changes', 'h1'],
      ['#/r', 'resources', 'h1'],
      ['#/r/service_assets', 'resource list', 'tbody tr[data-loaded="true"]'],
    ] as const) {
      await page.goto(`${served.main}/${hash}`);
      await expect(page.locator(ready).first()).toBeVisible({ timeout: 30_000 });
      await scan(page, screen, found);
    }
    await page.locator('tbody tr[data-loaded="true"]').first().click();
    await expect(page.locator('h1')).toBeVisible({ timeout: 30_000 });
    await scan(page, 'resource record', found);
    await verdict(found, testInfo);
  });
});
