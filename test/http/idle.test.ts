// A server nobody has asked anything holds no reader thread: serve starts its first reader when
// the first request arrives (so the first read does not wait for it), and never before.
// Threads are counted in /proc, so this runs on Linux.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { serve } from '../helpers/cli';
import { copyDemoDatabase } from '../helpers/seed';

vi.setConfig({ testTimeout: 120_000 });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-idle-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const threadsOf = (pid: number) => fs.readdirSync(`/proc/${pid}/task`).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The server's threads once it has settled after its start, and after its first request: waited
 * for until a new thread shows, for at most `waitMs`; answers how long it took to show.
 */
async function threadsBeforeAndAfterFirstRequest(name: string, extra: string[], waitMs: number): Promise<{ idle: number; after: number; ms: number }> {
  const p = await serve(['--db', copyDemoDatabase(path.join(tmp, `${name}.sqlite`)), '--port', '0', '--routing-port', '0', ...extra]);
  try {
    const pid = p.child.pid!;
    // The apps are built after the ready line; the count settles once they are.
    await sleep(1500);
    const idle = threadsOf(pid);
    await sleep(500);
    expect(threadsOf(pid)).toBe(idle);
    const t0 = performance.now();
    const res = await fetch(`${p.ready.main}/tenancy/instance/list`, { headers: { PgrApiKey: p.ready.apiKey } });
    expect(res.status).toBe(200);
    let after = threadsOf(pid);
    while (after === idle && performance.now() - t0 < waitMs) {
      await sleep(20);
      after = threadsOf(pid);
    }
    return { idle, after, ms: performance.now() - t0 };
  } finally {
    await p.stop();
  }
}

describe.skipIf(process.platform !== 'linux')('an idle server', () => {
  it('starts its first reader thread on the first request, not at start', async () => {
    const pooled = await threadsBeforeAndAfterFirstRequest('pooled', [], 5000);
    expect(pooled.after).toBeGreaterThan(pooled.idle);
    // Without reader threads the same request adds none: the thread above is the reader. Watched
    // five times as long as the reader took to show above (at least a second).
    const alone = await threadsBeforeAndAfterFirstRequest('alone', ['--readers', '0'], Math.max(1000, 5 * pooled.ms));
    expect(alone.after).toBe(alone.idle);
  });
});
