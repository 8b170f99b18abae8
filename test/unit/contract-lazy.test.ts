// The contract's schemas are built when first read: finding one operation (what the typed client
// does on every call) declares the operation list without building any schema, the vendor-path
// aliases included, and an alias reads the very schemas of the operation it names.
import { describe, expect, it } from 'vitest';
import { findOperation, isPending, operations } from '../../src-shared/contract/index';

const PARTS = ['body', 'query', 'params', 'responses'] as const;

describe('the contract, built lazily', () => {
  it('finds an operation without building the schemas of the others', () => {
    const op = findOperation('console.instances.list');
    expect(op?.path).toBe('/console/v1/instances');
    const all = operations();
    const aliases = all.filter((o) => o.aliasOf);
    expect(aliases.length).toBeGreaterThan(0);
    for (const o of [...aliases, ...all.filter((x) => x.operationId.startsWith('engine_go_'))]) {
      const declared = PARTS.filter((k) => Object.getOwnPropertyDescriptor(o, k));
      expect(declared.length, o.operationId).toBeGreaterThan(0);
      for (const k of declared) expect(isPending(o, k), `${o.operationId}.${k}`).toBe(true);
    }
  });

  it('gives an alias the schemas of the operation it names, once built', () => {
    const alias = operations().find((o) => o.aliasOf && o.operationId.endsWith('.search'))!;
    const own = findOperation(alias.aliasOf!)!;
    expect(alias.path).toContain('/logmule_go_');
    expect(alias.body).toBe(own.body);
    expect(alias.responses).toBe(own.responses);
    expect(isPending(alias, 'responses')).toBe(false);
    expect(Object.keys(alias)).toEqual(expect.arrayContaining(Object.keys(own)));
  });
});
