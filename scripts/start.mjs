#!/usr/bin/env node
// `npm start`: the desktop app when Electron's binary is present; otherwise a clear message and
// the same console served to the browser (`serve` on the default ports and database).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

/** Electron's binary when it is installed (its package keeps the binary's path in path.txt). */
function installedElectron(dir) {
  try {
    const rel = fs.readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
    const bin = path.join(dir, 'dist', rel);
    return rel && fs.existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

let electronBinary = null;
let reason = '';
try {
  const dir = path.dirname(require.resolve('electron/package.json'));
  electronBinary = installedElectron(dir);
  if (!electronBinary && !process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    // Electron's package downloads its binary on first use; try once, quietly and bounded.
    console.error("radar-console: fetching Electron's binary (once)...");
    const r = spawnSync(process.execPath, [path.join(dir, 'install.js')], { encoding: 'utf8', timeout: 180_000 });
    electronBinary = installedElectron(dir);
    if (!electronBinary) {
      const lines = `${r.stderr ?? ''}\n${r.stdout ?? ''}\n${r.error ?? ''}`.split('\n').map((l) => l.trim());
      reason = lines.find((l) => /error/i.test(l) && !l.startsWith('at ')) ?? '';
    }
  }
} catch (e) {
  reason = e instanceof Error ? e.message : String(e);
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
  // The desktop app's folder (written by the build): its package.json names the Electron main;
  // the package's own `main` is the typed client.
  forward(spawn(electronBinary, ['out/desktop', ...args], { stdio: 'inherit' }));
} else {
  console.error(
    "radar-console: Electron's binary is not installed here (it is downloaded separately and this machine cannot reach it" +
      `${reason ? `: ${reason}` : ''}).\n` +
      'radar-console: starting the same console in browser mode instead; open the address printed below in a browser.',
  );
  forward(spawn(process.execPath, ['out/main/cli.js', 'serve', ...args], { stdio: 'inherit' }));
}
