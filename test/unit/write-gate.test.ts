// The write gate: while a change over a query holds it, requests that may write wait for it, in
// arrival order, and reads do not wait.
import { describe, expect, it } from 'vitest';
import { operations } from '../../src-shared/contract/index';
import { mayWrite, writeGate } from '../../src-main/server/write-gate';

describe('the write gate', () => {
  it('holds writes until released, then lets them through in arrival order', async () => {
    const release = writeGate.hold();
    const order: string[] = [];
    const a = writeGate.free().then(() => order.push('a'));
    const b = writeGate.free().then(() => order.push('b'));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await Promise.all([a, b]);
    expect(order).toEqual(['a', 'b']);
    expect(writeGate.held).toBe(false);
  });

  it('a waiter released while another change takes the gate waits again', async () => {
    const first = writeGate.hold();
    let through = false;
    const waiter = writeGate.free().then(() => (through = true));
    first();
    const second = writeGate.hold(); // taken in the same turn as the release
    await new Promise((r) => setTimeout(r, 20));
    expect(through).toBe(false);
    second();
    await waiter;
    expect(through).toBe(true);
  });

  it('tells writing operations from reads', () => {
    const ids = new Map(operations().map((op) => [op.operationId, op.method]));
    const writes = (id: string) => mayWrite(ids.get(id)!, id);
    for (const id of ['service_asset_findings.search', 'service_asset_findings.group', 'service_asset_findings.get', 'console.incidents.bulk.get', 'console.incidents.bulk.cancel', 'console.jobs.cancel']) {
      expect(ids.has(id), id).toBe(true);
      expect(writes(id), id).toBe(false);
    }
    // The rules' searches clear the rules' reload flag: they write.
    for (const id of ['engine_go_rules.search', 'engine_go_rules.search_with_update_reload', 'logmule_go_rules.search', 'service_asset_findings.mass_update', 'console.incidents.set_status', 'console.incidents.bulk.start', 'public.incidents.update_status', 'console.import']) {
      expect(ids.has(id), id).toBe(true);
      expect(writes(id), id).toBe(true);
    }
  });
});
