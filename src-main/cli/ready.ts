// Where a running `serve` can be found: `<db>.server.json` beside its database, written once
// both ports listen and removed when it stops. It holds the addresses and the process id, never
// the key (that stays in `<db>.secrets.json`), so `radar-console api` finds the server of a
// database without being told its ports.
import fs from 'node:fs';
import path from 'node:path';

export interface ReadyInfo {
  main: string;
  routing: string;
  pid: number;
  started_at: string;
  /** `stored`: the server takes the key kept beside the database; `given`: one from --api-key or RADAR_API_KEY. */
  key: 'stored' | 'given';
}

export const readyFileFor = (dbFile: string): string => path.join(path.dirname(path.resolve(dbFile)), `${path.basename(dbFile)}.server.json`);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function writeReady(dbFile: string, info: ReadyInfo): void {
  const file = readyFileFor(dbFile);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The running server of a database; null when none was started or its process is gone. */
export function readReady(dbFile: string): ReadyInfo | null {
  let info: ReadyInfo;
  try {
    info = JSON.parse(fs.readFileSync(readyFileFor(dbFile), 'utf8')) as ReadyInfo;
  } catch {
    return null;
  }
  if (typeof info.main !== 'string' || typeof info.pid !== 'number' || !alive(info.pid)) return null;
  return info;
}

/** Removes the file when it is this process's own (a later server of the same database keeps its). */
export function removeReady(dbFile: string): void {
  const file = readyFileFor(dbFile);
  try {
    const info = JSON.parse(fs.readFileSync(file, 'utf8')) as ReadyInfo;
    if (info.pid === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // already gone
  }
}
