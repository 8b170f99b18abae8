// The served document through Redocly's linter with its recommended rules: 0 errors (and the
// warnings listed, so a new one is seen).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../node_modules/@redocly/cli/bin/cli.js');

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(async () => {
  await srv?.stop();
});

describe('redocly lint (recommended rules) on /openapi.json', () => {
  it('reports 0 errors and 0 warnings', async () => {
    const res = await srv.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const file = path.join(srv.dir, 'openapi.json');
    fs.writeFileSync(file, res.text);
    // Exit code 1 on errors: the report is read either way.
    const out = await run(process.execPath, [CLI, 'lint', file, '--extends=recommended', '--format=json'], {
      cwd: srv.dir,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    const lines = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(lines.slice(0, 20)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);
});
