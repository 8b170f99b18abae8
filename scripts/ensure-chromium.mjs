#!/usr/bin/env node
// Makes sure a Chromium is there for the browser tests: one already installed (CHROMIUM_PATH or
// Debian's /usr/bin/chromium), else Playwright's own download, else Debian's `chromium` package.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const system = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (fs.existsSync(system)) {
  console.log(`chromium: using ${system}`);
  process.exit(0);
}
const run = (cmd, args, timeout) => spawnSync(cmd, args, { stdio: 'inherit', timeout }).status === 0;

console.log('chromium: trying Playwright\'s own download');
if (run('npx', ['playwright', 'install', 'chromium'], 180_000)) {
  fs.mkdirSync('reports', { recursive: true });
  fs.writeFileSync('reports/.chromium', 'bundled');
  process.exit(0);
}
console.log("chromium: Playwright's download is not reachable; installing Debian's chromium package");
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const apt = (args) => (root ? run('apt-get', args, 600_000) : run('sudo', ['-n', 'apt-get', ...args], 600_000));
if (apt(['update', '-qq']) && apt(['install', '-y', '-qq', 'chromium']) && fs.existsSync('/usr/bin/chromium')) {
  console.log('chromium: installed /usr/bin/chromium');
  process.exit(0);
}
console.error('chromium: no Chromium could be installed; set CHROMIUM_PATH to a Chromium or Chrome binary');
process.exit(1);
