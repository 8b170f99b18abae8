// A keyboard-only analyst in the dialogs and on the list: the status's number key moves the
// keyboard to what is asked next (the reason, then the comment), Tab and Shift+Tab leave the typed
// comment as it is, digits typed in the comment stay text, Ctrl+Enter submits every dialog (status,
// risk, assign, saved views, CSV), and Enter opens the row under the cursor after a toolbar
// button was clicked with the mouse.
import { api, expect, loadedRows, openConsole, test } from './fixtures';

test.use({ viewport: { width: 1440, height: 900 } });

test('status dialog: the number key moves to the reason and the comment; Tab keeps the comment; Ctrl+Enter submits', async ({ page, served }) => {
  test.setTimeout(120_000);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
  const list = page.getByTestId('incidents-scroll');
  await list.focus();
  await page.keyboard.press('s');
  const dialog = page.getByRole('dialog', { name: /^Change the status/ });
  await expect(dialog).toBeVisible();

  // 3 (In progress) asks for no reason: the keyboard goes to the comment.
  await page.keyboard.press('3');
  const comment = dialog.locator('textarea');
  await expect(comment).toBeFocused();
  await page.keyboard.type('Patched 2 hosts, 1 left');
  await expect(comment).toHaveValue('Patched 2 hosts, 1 left');
  // The digits typed in the comment did not pick another status.
  await expect(dialog.getByRole('radio', { checked: true })).toHaveCount(1);
  await expect(dialog.locator('input[type="radio"][value="working_customer"]')).toBeChecked();
  // Tab moves on and back: the comment is kept.
  await page.keyboard.press('Tab');
  await expect(comment).not.toBeFocused();
  await expect(comment).toHaveValue('Patched 2 hosts, 1 left');
  await page.keyboard.press('Shift+Tab');
  await expect(comment).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(comment).not.toBeFocused();
  await expect(comment).toHaveValue('Patched 2 hosts, 1 left');

  // 7 (Closed) asks why: the keyboard goes to the reason first, then Tab reaches the comment, still typed.
  await dialog.locator('input[type="radio"]:checked').focus();
  await page.keyboard.press('7');
  const reason = dialog.getByRole('combobox');
  await expect(reason).toBeFocused();
  await expect(dialog.getByRole('button', { name: /^Change status/ })).toBeDisabled();
  await reason.selectOption({ index: 1 });
  await page.keyboard.press('Tab');
  await expect(comment).toBeFocused();
  await expect(comment).toHaveValue('Patched 2 hosts, 1 left');
  await page.keyboard.press('Control+Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('held-change')).toContainText('Status of 1 incident → Closed.');
  // Undone: nothing is sent.
  await page.keyboard.press('u');
  await expect(page.getByTestId('held-change')).toHaveCount(0);
});

test('Ctrl+Enter submits every dialog: risk, assign, saved views, CSV', async ({ page, served }) => {
  test.setTimeout(120_000);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
  const list = page.getByTestId('incidents-scroll');

  await list.focus();
  await page.keyboard.press('r');
  const risk = page.getByRole('dialog', { name: /^Change the risk level/ });
  await risk.getByRole('textbox').fill('4.4');
  await page.keyboard.press('Control+Enter');
  await expect(risk).toHaveCount(0);
  await expect(page.getByTestId('held-change')).toContainText('Risk level of 1 incident → 4.4');
  await page.keyboard.press('u');
  await expect(page.getByTestId('held-change')).toHaveCount(0);

  // Assign: found by typing, chosen with Space, submitted from the radio with Ctrl+Enter.
  const people = await api<{ items: { id: string; name: string }[] }>(served, 'GET', '/console/v1/people');
  const person = people.items.filter((p) => p.name).at(-1)!;
  await list.focus();
  await page.keyboard.press('Shift+A');
  const assign = page.getByRole('dialog', { name: /^Assign 1 incident/ });
  await expect(assign.getByRole('searchbox')).toBeFocused();
  await page.keyboard.type(person.name);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await expect(assign.getByRole('radio', { name: new RegExp(`^${person.name}`) })).toBeChecked();
  await page.keyboard.press('Control+Enter');
  await expect(assign).toHaveCount(0);
  await expect(page.getByTestId('held-change')).toContainText(`1 incident assigned to ${person.name}.`);
  await page.keyboard.press('u');
  await expect(page.getByTestId('held-change')).toHaveCount(0);

  // A saved view, named and saved from the keyboard.
  await page.getByRole('button', { name: /^Views/ }).click();
  const views = page.getByRole('dialog', { name: 'Saved views' });
  await page.keyboard.type('Keyboard view');
  await page.keyboard.press('Control+Enter');
  await expect(views.getByRole('list', { name: 'Saved views' })).toContainText('Keyboard view');
  await page.keyboard.press('Escape');
  await expect(views).toHaveCount(0);

  // CSV: Ctrl+Enter starts the export.
  await page.getByRole('button', { name: 'Export' }).click();
  await page.getByRole('menu', { name: 'Export as' }).getByRole('menuitem', { name: /^CSV/ }).click();
  const csv = page.getByRole('dialog', { name: /as CSV$/ });
  await expect(csv).toBeVisible();
  const download = page.waitForEvent('download', { timeout: 60_000 });
  await csv.getByRole('checkbox').first().focus();
  await page.keyboard.press('Control+Enter');
  expect((await download).suggestedFilename()).toMatch(/\.csv$/);
});

test('Enter opens the row under the cursor, also after a toolbar button was clicked with the mouse', async ({ page, served }) => {
  test.setTimeout(120_000);
  await openConsole(page, served);
  await expect(loadedRows(page).first()).toBeVisible({ timeout: 60_000 });
  const charts = page.getByRole('button', { name: 'Charts', exact: true });
  await expect(charts).toHaveAttribute('aria-pressed', 'true');
  // Charts hidden with the mouse; j moves the cursor, Enter opens that row, the charts stay hidden.
  await charts.click();
  await expect(charts).toHaveAttribute('aria-pressed', 'false');
  await page.keyboard.press('j');
  const second = loadedRows(page).nth(1);
  const title = (await second.locator('td').nth(2).textContent())?.trim() ?? '';
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary');
  await expect(detail.locator('dl.kv')).toBeVisible({ timeout: 30_000 });
  await expect(charts).toHaveAttribute('aria-pressed', 'false');
  if (title) await expect(detail).toContainText(title.slice(0, 20));
  await page.keyboard.press('Escape');
  await expect(detail).toHaveCount(0);
  // Clicked again, then Enter at once: the row under the cursor opens; the button is not pressed again.
  await charts.click();
  await expect(charts).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Enter');
  await expect(detail.locator('dl.kv')).toBeVisible({ timeout: 30_000 });
  await expect(charts).toHaveAttribute('aria-pressed', 'true');
  // From the keyboard, a focused button keeps the focus and Enter presses it.
  await page.keyboard.press('Escape');
  await charts.focus();
  await page.keyboard.press('Enter');
  await expect(charts).toHaveAttribute('aria-pressed', 'false');
  await expect(charts).toBeFocused();
});
