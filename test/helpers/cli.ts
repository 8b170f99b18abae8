// Runs the CLI as a child process, the way scripts and clients start it.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

/**
 * The CLI from source (tsx), so tests do not depend on a build; RADAR_CLI_BUILT=1 runs the built
 * one (out/main/cli.js), which starts faster (the long robustness runs start it hundreds of times).
 */
export function cliArgs(args: string[]): string[] {
  if (process.env.RADAR_CLI_BUILT === '1') return [path.join(ROOT, 'out/main/cli.js'), ...args];
  return ['--import', 'tsx', path.join(ROOT, 'src-main/cli.ts'), ...args];
}

export interface Ready {
  main: string;
  routing: string;
  db: string;
  apiKey: string;
}

export interface ServeProcess {
  child: ChildProcess;
  ready: Ready;
  stdout: () => string;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export function serve(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(['serve', ...args]), { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${err}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('radar-console ready '));
      if (!line) return;
      clearTimeout(timer);
      const ready = JSON.parse(line.slice('radar-console ready '.length)) as Ready;
      resolve({
        child,
        ready,
        stdout: () => out,
        stderr: () => err,
        stop: (signal = 'SIGTERM') =>
          new Promise((res) => {
            if (child.exitCode !== null) return res(child.exitCode);
            child.once('exit', (code) => res(code));
            child.kill(signal);
          }),
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before ready; stderr: ${err}`));
    });
  });
}
