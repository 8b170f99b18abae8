#!/usr/bin/env node
// Makes sure a Chromium is there for the browser tests: one already installed (CHROMIUM_PATH or
// Debian's /usr/bin/chromium, with its headless shell), else Playwright's own download, else
// Debian's `chromium` and `chromium-headless-shell` packages.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const system = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const run = (cmd, args, timeout) => spawnSync(cmd, args, { stdio: 'inherit', timeout }).status === 0;
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const apt = (args) => (root ? run('apt-get', args, 600_000) : run('sudo', ['-n', 'apt-get', ...args], 600_000));
if (fs.existsSync(system)) {
  // Beside Debian's Chromium, its headless shell (what the browser tests run when it is there):
  // installed when apt can, else the tests use the full browser.
  if (!process.env.CHROMIUM_PATH && !fs.existsSync(HEADLESS_SHELL) && fs.existsSync('/usr/bin/apt-get')) {
    if (apt(['install', '-y', '-qq', 'chromium-headless-shell'])) console.log(`chromium: installed ${HEADLESS_SHELL}`);
  }
  console.log(`chromium: using ${process.env.CHROMIUM_PATH || !fs.existsSync(HEADLESS_SHELL) ? system : HEADLESS_SHELL}`);
  process.exit(0);
}

console.log('chromium: trying Playwright\'s own download');
if (run('npx', ['playwright', 'install', 'chromium'], 180_000)) {
  fs.mkdirSync('reports', { recursive: true });
  fs.writeFileSync('reports/.chromium', 'bundled');
  process.exit(0);
}
console.log("chromium: Playwright's download is not reachable; installing Debian's chromium package");
if (apt(['update', '-qq']) && apt(['install', '-y', '-qq', 'chromium', 'chromium-headless-shell']) && fs.existsSync('/usr/bin/chromium')) {
  console.log('chromium: installed /usr/bin/chromium');
  process.exit(0);
}
console.error('chromium: no Chromium could be installed; set CHROMIUM_PATH to a Chromium or Chrome binary');
process.exit(1);
