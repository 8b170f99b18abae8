// The API reference reads /openapi.json without a validation error: Scalar checks the document
// against its own model of OpenAPI 3.1 and logs "document validation errors" for every schema it
// cannot read (a schema without a type, for one); the page must log none, and render.
import { expect, startServe, test } from './fixtures';

test('Scalar reads the document without a validation error', async ({ page }) => {
  test.setTimeout(180_000);
  // A server of its own over an empty database (the document does not depend on the data).
  const served = await startServe(['--seed', 'none']);
  try {
    const { main, apiKey } = served;
    const warnings: string[] = [];
    let added = false;
    page.on('console', (m) => {
      if (/addDocument/.test(m.text())) added = true;
      if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
    });
    await page.goto(`${main}/reference/#key=${apiKey}`);
    await expect(page.getByRole('heading', { name: 'Radar console local API' })).toBeVisible({ timeout: 120_000 });
    await expect.poll(() => added, { timeout: 120_000 }).toBe(true);
    expect(warnings.filter((w) => /validation/i.test(w))).toEqual([]);
    await expect(page.getByText('Create responsible groups').first()).toBeVisible();
  } finally {
    await served.stop();
  }
});
