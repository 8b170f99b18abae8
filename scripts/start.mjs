#!/usr/bin/env node
// `npm start`: the desktop app when Electron's binary is present; otherwise a clear message and
// the same console served to the browser (`serve` on the default ports and database).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

let electronBinary = null;
try {
  const p = require('electron');
  if (typeof p === 'string' && fs.existsSync(p)) electronBinary = p;
} catch {
  electronBinary = null;
}

const forward = (child) => {
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
};

if (electronBinary) {
  // better-sqlite3 is compiled for Node; inside Electron it must match Electron's ABI.
  const marker = 'node_modules/.radar-electron-abi';
  if (!fs.existsSync(marker)) {
    console.error('radar-console: rebuilding better-sqlite3 for Electron (once; `npm rebuild better-sqlite3` switches back for tests)');
    const r = spawnSync('npx', ['--yes', '@electron/rebuild', '-f', '-w', 'better-sqlite3'], { stdio: 'inherit' });
    if (r.status === 0) fs.writeFileSync(marker, new Date().toISOString());
  }
  forward(spawn(electronBinary, ['.', ...args], { stdio: 'inherit' }));
} else {
  console.error(
    'radar-console: Electron\'s binary is not installed here (it is downloaded separately and this machine cannot reach it).\n' +
      'radar-console: starting the same console in browser mode instead; open the address printed below in a browser.',
  );
  forward(spawn(process.execPath, ['out/main/cli.js', 'serve', ...args], { stdio: 'inherit' }));
}
