// The typed client's types (src-shared/client/contract-types.ts) are generated from the contract's
// declarations by scripts/client-types.ts: the file must be what the script writes now, so a
// change of a resource, a schema or an operation reaches the client's types (`npm run client-types`).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypesSource, OUT } from '../../scripts/client-types';

describe('the generated client types', () => {
  it('are current: the file is what scripts/client-types.ts writes from the declarations', () => {
    const now = clientTypesSource();
    const kept = fs.readFileSync(OUT, 'utf8');
    if (kept !== now) {
      const a = kept.split('\n');
      const b = now.split('\n');
      const first = a.findIndex((line, i) => line !== b[i]);
      expect.fail(`src-shared/client/contract-types.ts is not current (first difference at line ${first + 1}: ${JSON.stringify(a[first])} → ${JSON.stringify(b[first])}): run \`npm run client-types\``);
    }
  }, 60_000);

  it('name every resource, every operation and every public list', () => {
    const text = fs.readFileSync(OUT, 'utf8');
    for (const id of ['"service_asset_findings.search"', '"public.incidents.list"', '"cm.agents.apply_config"', '"console.sync.push"', '"logmule_go_rules.search": Operations["engine_go_rules.search"]']) expect(text).toContain(id);
    expect(text).toMatch(/export type ResourceName = "responsible_groups" \| /);
    expect(text).toMatch(/"service_asset\.name"/);
  });
});
