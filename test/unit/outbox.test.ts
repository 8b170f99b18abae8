// The outbox of a snapshot, written by the store's write path in the transaction of each change:
// what is recorded, how changes collapse, what is never recorded.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src-shared/errors';
import { getResource } from '../../src-shared/resources/index';
import { openDatabase, type Db } from '../../src-main/store/db';
import type { OutboxRow } from '../../src-main/store/outbox';
import { Store, type Rec } from '../../src-main/store/store';
import { Runner } from '../../src-main/store/query/runner';

const A = getResource('service_assets');
const F = getResource('findings');
const I = getResource('service_asset_findings');
const M = getResource('messages');
const CF = getResource('custom_fields');
const CFV = getResource('custom_field_values');
const R = getResource('engine_go_rules');
const USER = '7d444840-9dc0-11d1-b245-5ffdce74fad2';

let db: Db;
let store: Store;
let inc: Rec;
let inc2: Rec;
let cf: Rec;

const outbox = (): OutboxRow[] => db.prepare('SELECT * FROM sync_outbox ORDER BY seq').all() as OutboxRow[];
const entry = (field: string, recordId = inc.id as string) => outbox().find((e) => e.field === field && e.record_id === recordId);
const parse = (s: string | null) => JSON.parse(s ?? 'null');

beforeEach(() => {
  db = openDatabase(':memory:').db;
  store = new Store(db);
  // The copy as a snapshot writes it: before the origin is set, nothing is recorded.
  const asset = store.create(A, { name: 'srv-db', type: 'Host', location: 'Москва' });
  const finding = store.create(F, { title: 'Подбор пароля' });
  inc = store.create(I, { title: 'Инцидент 1', status: 'new', risklevel: 3, service_asset_id: asset.id as string, finding_id: finding.id as string });
  inc2 = store.create(I, { title: 'Инцидент 2', status: 'new', risklevel: 5, service_asset_id: asset.id as string, finding_id: finding.id as string });
  cf = store.create(CF, { field_key: 'ticket', title: 'Заявка', field_type: 'string' });
  expect(outbox()).toEqual([]);
  db.prepare(`INSERT INTO sync_origin (id, url, key_store, key_id, snapshot_at) VALUES (1, 'https://radar.example', '/k.json', 'origin', '2024-01-01T00:00:00.000000Z')`).run();
});
afterEach(() => db.close());

describe('outbox', () => {
  it('records each changed field with before, after, when and by whom', () => {
    store.update(I, { id: inc.id as string, status: 'working_customer', internal_note: 'звонок клиенту' }, { userId: USER });
    const status = entry('status')!;
    expect(status).toMatchObject({ resource: 'service_asset_findings', op: 'update', state: 'pending', user_id: USER });
    expect(parse(status.before)).toBe('new');
    expect(parse(status.after)).toBe('working_customer');
    expect(status.changed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(parse(entry('internal_note')!.before)).toBeNull();
    expect(parse(entry('internal_note')!.after)).toBe('звонок клиенту');
    // Derived values (risk from risklevel, acknowledged_at from the status) are the origin's to derive.
    expect(outbox().map((e) => e.field).sort()).toEqual(['internal_note', 'status']);
  });

  it('records the risk level alone; risk follows it on the origin', () => {
    store.update(I, { id: inc.id as string, risklevel: 9.1 });
    expect(outbox().map((e) => [e.field, parse(e.before), parse(e.after)])).toEqual([['risklevel', 3, 9.1]]);
  });

  it('collapses changes of one field: the first before, the last after', () => {
    store.update(I, { id: inc.id as string, status: 'working_customer' });
    store.update(I, { id: inc.id as string, status: 'closed' });
    const e = outbox();
    expect(e).toHaveLength(1);
    expect([parse(e[0]!.before), parse(e[0]!.after)]).toEqual(['new', 'closed']);
  });

  it('a change back to the original value leaves nothing to push', () => {
    store.update(I, { id: inc.id as string, status: 'closed', risklevel: 8 });
    store.update(I, { id: inc.id as string, status: 'new' });
    expect(outbox().map((e) => e.field)).toEqual(['risklevel']);
    store.update(I, { id: inc.id as string, risklevel: 3 });
    expect(outbox()).toEqual([]);
  });

  it('writing the same value records nothing', () => {
    store.update(I, { id: inc.id as string, status: 'new', risklevel: 3 });
    expect(outbox()).toEqual([]);
  });

  it('records mass updates in their transaction, and nothing when it rolls back', () => {
    store.massUpdateFields(I, [inc.id as string, inc2.id as string], { status: 'closed' }, { userId: USER });
    expect(outbox().map((e) => [e.record_id, e.field])).toEqual([
      [inc.id, 'status'],
      [inc2.id, 'status'],
    ]);
    const missing = '00000000-0000-4000-8000-00000000dead';
    expect(() => store.massUpdateFields(I, [inc.id as string, missing], { internal_note: 'x' })).toThrow(ApiError);
    expect(outbox().map((e) => e.field)).toEqual(['status', 'status']);
    expect(store.find(I, inc.id as string)!.internal_note).toBeNull();
  });

  it('records a message created here as one create entry with the whole record, later edits folded in', () => {
    const msg = store.create(M, { subject: 'Вопрос', body: 'Это ваш сервер?', service_asset_finding_id: inc.id as string }, { userId: USER });
    store.update(M, { id: msg.id as string, body: 'Это ваш сервер? Ответьте до пятницы' });
    const e = outbox();
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ resource: 'messages', record_id: msg.id, op: 'create', field: '', state: 'pending' });
    expect(parse(e[0]!.after)).toMatchObject({ id: msg.id, subject: 'Вопрос', body: 'Это ваш сервер? Ответьте до пятницы', service_asset_finding_id: inc.id });
    store.delete(M, msg.id as string);
    expect(outbox()).toEqual([]);
  });

  it('records custom field values created and changed', () => {
    const v = store.create(CFV, { custom_field_id: cf.id as string, service_asset_finding_id: inc.id as string, string_value: 'INC-1' });
    expect(outbox()).toEqual([expect.objectContaining({ resource: 'custom_field_values', op: 'create' })]);
    db.prepare('DELETE FROM sync_outbox').run();
    store.update(CFV, { id: v.id as string, string_value: 'INC-2' });
    expect(outbox().map((e) => [e.field, parse(e.before), parse(e.after)])).toEqual([['string_value', 'INC-1', 'INC-2']]);
  });

  it('a copied record deleted here: one delete entry holding the record as copied', () => {
    store.update(I, { id: inc2.id as string, status: 'closed' });
    store.delete(I, inc2.id as string);
    const e = outbox();
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ op: 'delete', record_id: inc2.id, field: '' });
    expect(parse(e[0]!.before)).toMatchObject({ id: inc2.id, status: 'new', title: 'Инцидент 2' });
  });

  it('a delete by filter records every deleted record', () => {
    new Runner(store).deleteAll(I, [{ field: 'title', filter_type: 'substr', value: 'Инцидент' }]);
    expect(outbox().map((e) => [e.op, e.record_id]).sort()).toEqual(
      [
        ['delete', inc.id],
        ['delete', inc2.id],
      ].sort(),
    );
  });

  it('records link lists set through _relations', () => {
    const rule = store.create(R, { name: 'Правило', frontend_data: {}, settings: {} }, { source: 'origin' });
    store.update(I, { id: inc.id as string, _relations: { engine_go_rules: [rule.id as string] } });
    expect(outbox().map((e) => [e.field, parse(e.before), parse(e.after)])).toEqual([['_relations.engine_go_rules', [], [rule.id]]]);
  });

  it('records nothing for changes received from the origin', () => {
    store.update(I, { id: inc.id as string, status: 'closed' }, { source: 'origin' });
    store.create(M, { subject: 'с платформы', service_asset_finding_id: inc.id as string }, { source: 'origin' });
    expect(outbox()).toEqual([]);
  });

  it('a write from the origin makes no derived rows: the status change and its times come from the origin', () => {
    const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM service_asset_finding_status_changes WHERE service_asset_finding_id = ?').get(inc.id) as { n: number }).n;
    const before = rows();
    store.update(I, { id: inc.id as string, status: 'closed' }, { source: 'origin' });
    expect(rows()).toBe(before);
    store.update(I, { id: inc.id as string, status: 'new' }, { source: 'origin' });
    expect(rows()).toBe(before);
    expect(store.find(I, inc.id as string)).toMatchObject({ status: 'new', reopened_at: null, acknowledged_at: null });
    // The same change made here is recorded and makes its row.
    store.update(I, { id: inc.id as string, status: 'closed' });
    expect(rows()).toBe(before + 1);
    expect(entry('status')).toMatchObject({ op: 'update', state: 'pending' });
  });

  it('an import records its changes only when asked to', () => {
    store.update(I, { id: inc.id as string, title: 'из файла' }, { source: 'import' });
    expect(outbox()).toEqual([]);
    store.update(I, { id: inc.id as string, title: 'из файла, как изменение' }, { source: 'import', record: true });
    expect(entry('title')).toMatchObject({ op: 'update' });
  });

  it('updateSet records each record it changes, once per field', () => {
    const n = store.updateSet(I, [inc.id as string, inc2.id as string, 'not-a-uuid'], { title: 'Общий заголовок' });
    expect(n).toBe(2);
    expect(outbox().map((e) => [e.record_id, e.field, parse(e.after)]).sort()).toEqual(
      [
        [inc.id, 'title', 'Общий заголовок'],
        [inc2.id, 'title', 'Общий заголовок'],
      ].sort(),
    );
    store.updateSet(I, [inc.id as string], { title: 'Другой' }, { source: 'origin' });
    expect(entry('title')).toMatchObject({ after: JSON.stringify('Общий заголовок') });
  });

  it('a failed entry changed again is tried again', () => {
    store.update(I, { id: inc.id as string, status: 'closed' });
    db.prepare(`UPDATE sync_outbox SET state = 'failed', error = 'HTTP 400'`).run();
    store.update(I, { id: inc.id as string, status: 'invalid' });
    expect(entry('status')).toMatchObject({ state: 'pending', error: null });
  });

  it('a change during a push keeps the entry being sent, with the newer value', () => {
    store.update(I, { id: inc.id as string, status: 'closed' });
    db.prepare(`UPDATE sync_outbox SET state = 'sending'`).run();
    store.update(I, { id: inc.id as string, status: 'new' });
    expect(entry('status')).toMatchObject({ state: 'sending' });
    expect(parse(entry('status')!.after)).toBe('new');
  });
});
