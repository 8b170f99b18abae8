// The bulk mode of the store's write path: only on a store opened for it; who is writing decides
// what the path records (the origin's versions for a write from the origin, the outbox for an
// import that asks for it); refusals are data.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getResource } from '../../src-shared/resources/index';
import { openDatabase } from '../../src-main/store/db';
import { Store } from '../../src-main/store/store';
import { MissingReferences, WriteRefusal } from '../../src-main/store/write/bulk';

const F = getResource('findings');
const I = getResource('service_asset_findings');
const ID = '6f1c1b8e-2f0f-4a44-9a39-00000000000';
const TS = '2024-03-01T10:00:00.000000Z';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-bulk-'));
  file = path.join(dir, 'b.sqlite');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const rows = (sql: string) => {
  const { db } = openDatabase(file, { create: false });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

describe('bulk writes', () => {
  it('are refused on a store not opened for them (the server connection keeps its foreign keys)', () => {
    const { db } = openDatabase(':memory:');
    expect(() => new Store(db).bulk({ source: 'import' })).toThrow(/opened for them/);
    db.close();
  });

  it('from the origin: the path notes the origin version of each record, and records no change', async () => {
    const { store } = Store.openForBulk(file);
    store.db.prepare(`INSERT INTO sync_origin (id, url, key_store, key_id, snapshot_at) VALUES (1, 'https://radar.example', '/k.json', 'origin', '2024-01-01T00:00:00.000000Z')`).run();
    const b = store.bulk({ source: 'origin' });
    b.begin();
    b.put(F, `${ID}1`, { title: 'с платформы' }, TS, TS, null);
    b.put(F, `${ID}2`, { title: 'без версии' }, null, null, null);
    await b.commit();
    b.close();
    expect(rows('SELECT resource, id, updated_at FROM sync_remote')).toEqual([{ resource: 'findings', id: `${ID}1`, updated_at: TS }]);
    expect(rows('SELECT * FROM sync_outbox')).toEqual([]);
  });

  it('from files: no origin versions; recording changes needs a snapshot', async () => {
    const { store } = Store.openForBulk(file);
    const b = store.bulk({ source: 'import' });
    b.begin();
    b.put(F, `${ID}1`, { title: 'из файла' }, TS, TS, null);
    await b.commit();
    b.close();
    expect(rows('SELECT * FROM sync_remote')).toEqual([]);
    const again = Store.openForBulk(file).store.bulk({ source: 'import', record: true });
    expect(() => again.begin()).toThrow(WriteRefusal);
    again.close();
  });

  it('refusals are data: the place of the record given back, missing references listed', async () => {
    const { store } = Store.openForBulk(file);
    const b = store.bulk({ source: 'import' });
    b.begin();
    b.put(F, `${ID}1`, { title: 'первый', display_id: 7 }, TS, TS, 'line 1');
    let refusal: unknown;
    try {
      b.put(F, `${ID}2`, { title: 'второй', display_id: 7 }, TS, TS, 'line 2');
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(WriteRefusal);
    expect(refusal).toMatchObject({ loc: 'line 2', id: `${ID}2`, field: 'display_id' });
    b.rollback();
    b.begin();
    b.put(I, `${ID}3`, { title: 'ссылается на нет', finding_id: `${ID}9` }, TS, TS, 'line 3');
    const e = await b.commit().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MissingReferences);
    expect((e as MissingReferences).list[0]).toMatchObject({ kind: 'findings', from: 'service_asset_findings', field: 'finding_id', value: `${ID}9`, id: `${ID}3` });
    b.close();
    expect(rows('SELECT id FROM findings')).toEqual([]);
  });
});
