// Every example the command line's help prints runs as printed: the examples of each command's
// `--help` (every command and subcommand) are run with bash, the command installed on PATH, against
// the server `serve` runs for the default database (the one the examples reach without --db),
// and each must exit 0 and print JSON.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProgram, main } from '../../src-main/cli/program';
import { cliArgs, serve, type ServeProcess } from '../helpers/cli';

vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-help-examples-'));
const dataDir = path.join(tmp, 'data');
const bin = path.join(tmp, 'bin');
let server: ServeProcess;
let env: NodeJS.ProcessEnv;

type Cmd = { name(): string; commands: readonly Cmd[] };

/** Every command path of the program: `api`, `instance add`, `sync status`, ... */
function commandPaths(cmd: Cmd, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

/** The example lines of a help text: the indented lines after a line starting `Examples`. */
function examplesOf(help: string): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of help.split('\n')) {
    if (/^Examples\b/.test(line)) inside = true;
    else if (inside && /^ {2}\S/.test(line)) out.push(line.trim());
    else if (inside && line.trim() === '') inside = false;
  }
  return out;
}

async function helpOf(args: string[]): Promise<string> {
  let text = '';
  const code = await main([...args, '--help'], { out: (s) => void (text += s), err: (s) => void (text += s) });
  expect(code, args.join(' ')).toBe(0);
  return text;
}

function bash(line: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', line], { cwd: tmp, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const examples: { command: string; line: string }[] = [];
const helps = new Map<string, string>();

beforeAll(async () => {
  process.env.RADAR_DATA_DIR = dataDir;
  for (const p of [[], ...commandPaths(buildProgram() as unknown as Cmd)]) {
    const help = await helpOf(p);
    helps.set(p.join(' ') || '(program)', help);
    for (const line of examplesOf(help)) examples.push({ command: p.join(' ') || '(program)', line });
  }
  // The command on PATH, as an installed package puts it: the build once `npm test` has made it,
  // else the sources through tsx (the packed one is tested in cli-package.test.ts).
  fs.mkdirSync(bin);
  const args = cliArgs([]).map((a) => (a === 'tsx' ? pathToFileURL(require.resolve('tsx')).href : a));
  fs.writeFileSync(path.join(bin, 'radar-console'), `#!/bin/sh\nexec ${[process.execPath, ...args].map((a) => `"${a}"`).join(' ')} "$@"\n`, { mode: 0o755 });
  env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, RADAR_DATA_DIR: dataDir, RADAR_API_KEY: '' };
  // The default database's server: `serve` without --db.
  server = await serve(['--port', '0', '--routing-port', '0'], { RADAR_DATA_DIR: dataDir, RADAR_API_KEY: '' });
  expect(server.ready.db).toBe(path.join(dataDir, 'radar.sqlite'));
}, 180_000);

afterAll(async () => {
  await server?.stop();
  delete process.env.RADAR_DATA_DIR;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the help texts', () => {
  it('have no doubled brackets (a flag text of its own in parentheses besides the default commander adds)', () => {
    expect(helps.size).toBeGreaterThan(15);
    const doubled = [...helps].filter(([, text]) => /\(\(|\)\)|\[\[|\]\]/.test(text.replace(/\s+/g, ' '))).map(([name]) => name);
    expect(doubled).toEqual([]);
  });

  it('put a default right after the text it belongs to (not after a separator: "...; (default: ...)")', () => {
    const dangling = [...helps].filter(([, text]) => /[;,:] \(default/.test(text.replace(/\s+/g, ' '))).map(([name]) => name);
    expect(dangling).toEqual([]);
  });
});

describe('the examples of --help', () => {
  it('there are some, and each names the command it belongs to', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const e of examples) expect(e.line, e.command).toContain(`radar-console ${e.command.split(' ')[0]}`);
  });

  it('each runs as printed against the default database’s server: exit 0, JSON out', async () => {
    const failed: string[] = [];
    for (const e of examples) {
      const r = await bash(e.line);
      let parsed = false;
      try {
        JSON.parse(r.stdout);
        parsed = true;
      } catch {
        // reported below
      }
      if (r.code !== 0 || !parsed) failed.push(`${e.line}\n  exit ${r.code}; stderr: ${r.stderr.slice(0, 300)}; stdout: ${r.stdout.slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
  }, 300_000);
});
