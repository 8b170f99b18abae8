// The people directory of a database (names for user uuids) and the local analyst (kept in the
// main database's settings: the name; the uuid is LOCAL_USER_ID, the console's Pgr-User-Id).
import crypto from 'node:crypto';
import os from 'node:os';
import { ApiError, notFound } from '../../src-shared/errors';
import { LOCAL_USER_ID, shortNameOf, type Person, type PersonInput } from '../../src-shared/schemas/people';
import { nowTs } from '../../src-shared/time';
import type { Store } from './store';

const ANALYST_NAME = 'analyst.name';

export function listPeople(store: Store): Person[] {
  return store.all<Person>(`SELECT id, name, short_name, login, email, role FROM console_people ORDER BY name`);
}

export function addPerson(store: Store, input: PersonInput): Person {
  const id = (input.id ?? crypto.randomUUID()).toLowerCase();
  if (store.get1(`SELECT 1 AS x FROM console_people WHERE id = ?`, [id])) throw new ApiError(409, 'person already exists', { fields: ['id'] });
  const at = nowTs();
  const p: Person = {
    id,
    name: input.name,
    short_name: input.short_name ?? shortNameOf(input.name),
    login: input.login ?? null,
    email: input.email ?? null,
    role: input.role ?? null,
  };
  store.run(`INSERT INTO console_people (id, name, short_name, login, email, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
    p.id, p.name, p.short_name, p.login, p.email, p.role, at, at,
  ]);
  return p;
}

export function removePerson(store: Store, id: string): void {
  if (store.run(`DELETE FROM console_people WHERE id = ?`, [id.toLowerCase()]).changes === 0) throw notFound();
}

/** The local analyst: the person of the directory with LOCAL_USER_ID, else the name kept in settings
 * (first start: the operating system's user name). */
export function localAnalyst(store: Store): Person {
  const known = store.get1<Person>(`SELECT id, name, short_name, login, email, role FROM console_people WHERE id = ?`, [LOCAL_USER_ID]);
  if (known) return known;
  let name = store.get1<{ value: string }>(`SELECT value FROM settings WHERE key = ?`, [ANALYST_NAME])?.value;
  let login: string | null = null;
  try {
    login = os.userInfo().username || null;
  } catch {
    login = null;
  }
  if (!name) name = login ?? 'Analyst';
  return { id: LOCAL_USER_ID, name, short_name: shortNameOf(name), login, email: null, role: null };
}

export function renameAnalyst(store: Store, name: string): Person {
  const at = nowTs();
  store.run(`UPDATE console_people SET name = ?, short_name = ?, updated_at = ? WHERE id = ?`, [name, shortNameOf(name), at, LOCAL_USER_ID]);
  store.run(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, [ANALYST_NAME, name]);
  return localAnalyst(store);
}
