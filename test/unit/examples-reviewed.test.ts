// The recorded examples (src-shared/contract/examples.json, written by `npm run examples`) are
// reviewed, not re-baselined: every operation's status and answer shape must be the reviewed one
// (src-shared/contract/examples.reviewed.json) until a change is accepted on purpose with
// `npm run examples -- --accept`.
import { describe, expect, it } from 'vitest';
import { DEMO_EXAMPLES } from '../../src-shared/contract/examples';
import { operations } from '../../src-shared/contract/index';
import { readReviewed, reviewChanges, reviewedOf, shapeOf } from '../../scripts/examples-review';

describe('the recorded examples against the reviewed statuses and shapes', () => {
  it('every example has the reviewed status and answer shape', () => {
    const changes = reviewChanges(readReviewed(), reviewedOf(DEMO_EXAMPLES));
    expect(changes, 'changes of the recorded examples not yet accepted: review them, then `npm run examples -- --accept`').toEqual([]);
  });

  it('every operation has a reviewed example', () => {
    const reviewed = readReviewed();
    expect(operations().map((op) => op.operationId).filter((id) => !(id in reviewed))).toEqual([]);
  });

  it('reports a changed status, a field gone, a field added and a changed type, each by operation and path', () => {
    const before = reviewedOf({
      'rules.create': { status: 201, answer: { id: 'a', name: 'n', rule_sets: [{ id: 'x', name: 'y' }] } },
      'rules.get': { status: 200, answer: { id: 'a', risklevel: 1 } },
    });
    const after = reviewedOf({
      'rules.create': { status: 409, answer: { error: 'name already used', error_code: 409 } },
      'rules.get': { status: 200, answer: { id: 'a', risklevel: '1', note: null } },
      'rules.delete': { status: 200, answer: { id: 'a' } },
    });
    const changes = reviewChanges(before, after);
    expect(changes).toEqual([
      'rules.create: status 201 → 409',
      'rules.create: answer.error: (absent) → string',
      'rules.create: answer.error_code: (absent) → number',
      'rules.create: answer.id: string → (absent)',
      'rules.create: answer.name: string → (absent)',
      'rules.create: answer.rule_sets: [{"id":"string","name":"string"}] → (absent)',
      'rules.delete: a new example (status 200)',
      'rules.get: answer.note: (absent) → null',
      'rules.get: answer.risklevel: number → string',
    ]);
    expect(reviewChanges(before, before)).toEqual([]);
  });

  it('a list has the shape of its elements together: keys only some have are marked optional', () => {
    expect(shapeOf([{ a: 1, b: 'x' }, { a: 2, c: null }])).toEqual([{ a: 'number', 'b?': 'string', 'c?': 'null' }]);
    expect(shapeOf({ v: [1, 'x'] })).toEqual({ v: ['number|string'] });
    expect(shapeOf([])).toEqual([]);
  });
});
