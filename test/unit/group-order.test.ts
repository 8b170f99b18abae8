// The console's order of paged groups (src-renderer/src/views/incidents/groupOrder.ts): values
// compared as SQLite orders them (checked against SQLite itself, Cyrillic and characters outside
// the BMP included), and the pages of several instances merged so that no group is shown before
// every instance with more to read has read past its value.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compareValues, mergedOf, type Group, type Part } from '../../src-renderer/src/views/incidents/groupOrder';

describe('compareValues', () => {
  it('orders values as SQLite orders a column of them: none first, then numbers, then text in binary order', () => {
    const values: unknown[] = [
      'Подбор пароля SSH',
      'apache',
      'Apache',
      'Zabbix',
      '',
      null,
      '\u{1F600} smile',
      '\uFFFD replacement',
      '\uE000 private use',
      'ёж',
      'еж',
      'Ёж',
      'a\u0000b',
      'a',
      'ab',
      3,
      -1,
      2.5,
      '10',
      '9',
    ];
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (v)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (const v of values) insert.run(v);
    const sqlite = (db.prepare('SELECT v FROM t ORDER BY v').all() as { v: unknown }[]).map((r) => r.v);
    db.close();
    expect([...values].sort(compareValues)).toEqual(sqlite);
  });
});

const tag = (id: string) => ({ id, name: id }) as Part['tag'];
const part = (id: string, values: string[], done: boolean): Part => ({
  tag: tag(id),
  items: values.map((value): Group => ({ instance: tag(id), value, count: 1 })),
  next: values.length,
  groups: values.length + (done ? 0 : 10),
  total: values.length + (done ? 0 : 10),
  done,
});
const shown = (parts: Part[]) => mergedOf(parts).map((g) => `${g.instance.id}:${String(g.value)}`);

describe('mergedOf', () => {
  it('shows one instance’s pages as they are', () => {
    expect(shown([part('a', ['b', 'c'], false)])).toEqual(['a:b', 'a:c']);
  });

  it('shows the groups of several instances in value order up to the smallest last value of those with more to read', () => {
    // b has read up to "d": a's "e" and "f" could still have b's groups before them.
    expect(shown([part('a', ['a', 'c', 'e', 'f'], false), part('b', ['b', 'd'], false)])).toEqual(['a:a', 'b:b', 'a:c', 'b:d']);
    // b read to its end: everything a has read can be shown.
    expect(shown([part('a', ['a', 'c', 'e', 'f'], false), part('b', ['b', 'd'], true)])).toEqual(['a:a', 'b:b', 'a:c', 'b:d', 'a:e', 'a:f']);
    // The same value on two instances: two groups, by instance.
    expect(shown([part('a', ['x'], true), part('b', ['x'], true)])).toEqual(['a:x', 'b:x']);
    // An instance with more to read but nothing read yet holds everything back.
    expect(shown([part('a', ['a'], false), part('b', [], false)])).toEqual([]);
  });
});
