// The README stands alone: every relative link points at a file inside the repository.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

it('every relative link of the README resolves to a file of the repository', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:|^#/.test(l));
  const bad = links.filter((l) => {
    const target = path.resolve(ROOT, l.split('#')[0]!);
    return !target.startsWith(ROOT + path.sep) || !fs.existsSync(target);
  });
  expect(bad).toEqual([]);
});
