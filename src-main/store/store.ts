// The generic store: the connection with its statement cache and data version, and every write
// of the data-management API over any registry resource (reads of compiled plans, searches and
// groupings go through the query runner, query/runner.ts). Multi-row writes run in one
// transaction; nothing is half-written.
import crypto from 'node:crypto';
import { ApiError, badRequest, ERR, MASS, notFound } from '../../src-shared/errors';
import {
  fieldsOf,
  getResource,
  listRelationsOf,
  relationsOf,
  RESOURCES,
  type FieldInfo,
  type ResourceDef,
} from '../../src-shared/resources/index';
import { isUuid } from '../../src-shared/schemas/common';
import { ignoredKeys, type WriteBody } from '../../src-shared/schemas/resource';
import { nowTs } from '../../src-shared/time';
import { decodeRow, encodeValue } from './codec';
import { isBusy, openDatabase } from './db';
import { runsEffects, type Rec, type WriteContext, type WriteOptions } from './api';
import { kindOf } from './kinds/index';
import { operatorsFor } from './query/operators';
import { checkRelationNames, columnExpr, requireField } from './search';
import { beginChange } from './outbox';
import { placeholders, q } from './sql';
import { checkValue, FieldInvalid, missingRequired } from './write/checks';
import { asApiError } from './write/constraints';
import { BulkWrite, type BulkOptions } from './write/bulk';
import { setRelations } from './write/links';
import { attachRelations } from './relations';
import { Statements } from './statements';
import { highestSql } from './write/sequences';

export type { Rec, WriteContext, WriteOptions, WriteSource } from './api';

export interface MassResult {
  id: string;
  error_code: number;
}

/**
 * Page cache of a connection opened for bulk writes: bounded memory whatever the size of the
 * import (96 MiB measured no faster on 1,000,000 incidents).
 */
const BULK_CACHE_KIB = 32 * 1024;

export class Store extends Statements {
  /** Set on a store opened for bulk writes (openForBulk): whether its database was made for them. */
  private bulkOf: { created: boolean } | null = null;

  /**
   * A store on its own connection for bulk writes (import, snapshot, pull): the file created and
   * migrated when missing, a bounded page cache; a database made for it has no other reader, so
   * its pages are written straight to the file (a rollback journal, WAL again at close).
   */
  static openForBulk(file: string, o: { busyTimeoutMs?: number; cacheKiB?: number } = {}): { store: Store; created: boolean } {
    const { db, created } = openDatabase(file, { busyTimeoutMs: o.busyTimeoutMs ?? 5000 });
    db.pragma(`cache_size = -${Math.round(o.cacheKiB ?? BULK_CACHE_KIB)}`);
    if (created) db.pragma('journal_mode = DELETE');
    db.exec('CREATE TEMP TABLE IF NOT EXISTS import_seen (t TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (t, id)) WITHOUT ROWID');
    const store = new Store(db);
    store.bulkOf = { created };
    return { store, created };
  }

  /**
   * The bulk mode of the write path (write/bulk.ts). Only on a store opened for it: its foreign
   * keys are off while a batch runs, which the server's shared connection must never be.
   */
  bulk(o: BulkOptions): BulkWrite {
    if (!this.bulkOf) throw new Error('bulk writes need a store opened for them (Store.openForBulk)');
    return new BulkWrite(this, o, this.bulkOf.created);
  }

  /** One record, with the named relations loaded (all of them when `relations` is undefined). */
  get(r: ResourceDef, rawId: string, relations?: readonly string[]): Rec {
    const id = rawId.toLowerCase();
    const rec = this.find(r, id);
    if (!rec) throw notFound();
    const names = relations === undefined ? relationsOf(r).map(([n]) => n) : checkRelationNames(r, relations);
    const rows = [this.rawRow(r, id)!];
    attachRelations(
      this,
      r,
      rows,
      [rec],
      names,
      listRelationsOf(r).map(([n]) => n),
    );
    return rec;
  }

  /** A record without relations, or undefined. */
  find(r: ResourceDef, rawId: string): Rec | undefined {
    if (!isUuid(rawId)) return undefined;
    const id = rawId.toLowerCase();
    const fields = fieldsOf(r);
    const cols = fields.map((f) => `${columnExpr(r, f)} AS ${q(f.name)}`).join(', ');
    const row = this.get1(`SELECT ${cols} FROM ${q(r.table)} t WHERE t.id = ?`, [id]);
    return row ? decodeRow(row, fields) : undefined;
  }

  private rawRow(r: ResourceDef, id: string): Rec | undefined {
    return this.get1(`SELECT * FROM ${q(r.table)} WHERE id = ?`, [id]);
  }

  exists(r: ResourceDef, id: string): boolean {
    return isUuid(id) && !!this.get1(`SELECT 1 AS x FROM ${q(r.table)} WHERE id = ?`, [id.toLowerCase()]);
  }

  // ---------------------------------------------------------------- writing

  /** Field values of a write body: known writable fields only (ignored keys dropped). */
  private writableValues(r: ResourceDef, body: WriteBody): Rec {
    const ignored = new Set(ignoredKeys(r));
    const out: Rec = {};
    for (const [k, v] of Object.entries(body)) {
      if (k === 'id' || k === '_relations' || ignored.has(k) || v === undefined) continue;
      const def = r.fields[k];
      if (!def) throw badRequest(`unknown field: ${k}`);
      out[k] = v;
    }
    return out;
  }

  private checkRefs(r: ResourceDef, values: Rec): void {
    for (const [k, v] of Object.entries(values)) {
      const def = r.fields[k]!;
      if (!def.ref || v === null || v === undefined) continue;
      if (!this.exists(getResource(def.ref), v as string)) throw badRequest(`incorrect relation identifiers for ${k}`);
      values[k] = (v as string).toLowerCase();
    }
  }

  private insertRow(r: ResourceDef, id: string, values: Rec, at: string, updatedAt: string = at): void {
    const names = Object.keys(values);
    const cols = ['id', ...names, 'created_at', 'updated_at'];
    const params = [id, ...names.map((n) => encodeValue(r.fields[n]!.kind, values[n])), at, updatedAt];
    try {
      this.run(`INSERT INTO ${q(r.table)} (${cols.map(q).join(', ')}) VALUES (${placeholders(cols.length)})`, params);
    } catch (e) {
      throw asApiError(r, e);
    }
  }

  /** One UPDATE of the listed records (updated_at set to `at`, or kept when `at` is null); answers the rows changed. */
  private updateRows(r: ResourceDef, ids: readonly string[], values: Rec, at: string | null): number {
    const names = Object.keys(values);
    const sets = [...names.map((n) => `${q(n)} = ?`), ...(at === null ? [] : ['updated_at = ?'])];
    if (!sets.length) return 0;
    const params = [...names.map((n) => encodeValue(r.fields[n]!.kind, values[n])), ...(at === null ? [] : [at])];
    const one = ids.length === 1;
    try {
      return this.run(`UPDATE ${q(r.table)} SET ${sets.join(', ')} WHERE ${one ? 'id = ?' : 'id IN (SELECT value FROM json_each(?))'}`, [
        ...params,
        one ? ids[0] : JSON.stringify(ids),
      ]).changes;
    } catch (e) {
      throw asApiError(r, e);
    }
  }

  private nextSequence(r: ResourceDef, field: string): number {
    return (this.get1<{ n: number }>(highestSql(r, field))?.n ?? 0) + 1;
  }

  /** Server-set read-only fields of a write (WriteOptions.serverSet), checked against the declaration. */
  private serverValues(r: ResourceDef, set: Rec | undefined): Rec {
    if (!set) return {};
    for (const k of Object.keys(set)) if (!r.fields[k]) throw new Error(`${r.name} has no field ${k}`);
    return set;
  }

  /** Creates a record from a validated body; answers the stored record. */
  create(r: ResourceDef, body: WriteBody, opts: WriteOptions = {}): Rec {
    return this.tx(() => {
      const id = body.id?.toLowerCase() ?? crypto.randomUUID();
      const values = this.writableValues(r, body);
      for (const [name, def] of Object.entries(r.fields)) {
        if (values[name] === undefined && def.default !== undefined) values[name] = structuredClone(def.default);
        if (def.sequence && (values[name] === undefined || values[name] === null)) values[name] = this.nextSequence(r, name);
      }
      const missing = missingRequired(r, values, 'client');
      if (missing) throw badRequest(`${missing} is required`);
      const ctx: WriteContext = { ...opts };
      const effects = runsEffects(ctx) ? kindOf(r)?.effects : undefined;
      r.hooks?.beforeWrite?.(values, { op: 'create' });
      this.checkRefs(r, values);
      Object.assign(values, this.serverValues(r, opts.serverSet));
      const at = opts.at ?? nowTs();
      this.insertRow(r, id, values, at, opts.updatedAt ?? at);
      if (body._relations) this.setRelations(r, id, body._relations, at);
      effects?.afterCreate?.(this, id, values, ctx, at);
      // The outbox of a snapshot (sync), in this transaction.
      beginChange(this, r, 'create', id, ctx, [], relationNames(body._relations))?.done();
      return this.find(r, id)!;
    });
  }

  /** Partial update from a validated body (`id` plus the fields to change). */
  update(r: ResourceDef, rawBody: WriteBody & { id: string }, opts: WriteOptions = {}): Rec {
    const body = { ...rawBody, id: rawBody.id.toLowerCase() };
    return this.tx(() => {
      const before = this.find(r, body.id);
      if (!before) throw notFound();
      const values = this.writableValues(r, body);
      const ctx: WriteContext = { ...opts };
      // The outbox of a snapshot (sync): the fields as asked, read before and after, in this transaction.
      const change = beginChange(this, r, 'update', body.id, ctx, Object.keys(values), relationNames(body._relations));
      r.hooks?.beforeWrite?.(values, { op: 'update', existing: before });
      this.checkRefs(r, values);
      Object.assign(values, this.serverValues(r, opts.serverSet));
      const at = opts.at ?? nowTs();
      this.updateRows(r, [body.id], values, opts.touch === false ? null : at);
      if (body._relations) this.setRelations(r, body.id, body._relations, at);
      if (runsEffects(ctx)) kindOf(r)?.effects?.afterUpdate?.(this, before, values, ctx, at);
      change?.done();
      return this.find(r, body.id)!;
    });
  }

  /**
   * The same values set on every listed record in one UPDATE (a flag cleared after a read, a
   * count the seed fills in): the declaration's hooks run on the values, references are
   * checked, the outbox records each record when tracked; kind effects do not run (the values
   * are the server's own, never a status). Ids not stored are skipped; answers the rows changed.
   */
  updateSet(r: ResourceDef, rawIds: readonly string[], rawValues: Rec, opts: WriteOptions = {}): number {
    const ids = [...new Set(rawIds.filter(isUuid).map((x) => x.toLowerCase()))];
    if (!ids.length) return 0;
    const values = { ...this.serverValues(r, rawValues) };
    return this.tx(() => {
      const ctx: WriteContext = { ...opts };
      r.hooks?.beforeWrite?.(values, { op: 'update' });
      this.checkRefs(r, values);
      const changes = ids.map((id) => beginChange(this, r, 'update', id, ctx, Object.keys(values)));
      const n = this.updateRows(r, ids, values, opts.touch === false ? null : (opts.at ?? nowTs()));
      for (const c of changes) c?.done();
      return n;
    });
  }

  /**
   * Makes each listed link kind equal to its list (spec: link management through `_relations`):
   * absent keys are left alone, [] removes all; every id must exist.
   */
  setRelations(r: ResourceDef, id: string, rels: Record<string, string[] | undefined>, at: string): void {
    setRelations(this, r, id, rels, at);
  }

  /** Resources holding a restricting reference to this record. */
  private restrictingRefs(r: ResourceDef, id: string): string[] {
    const out: string[] = [];
    for (const other of RESOURCES) {
      for (const [fname, def] of Object.entries(other.fields)) {
        if (def.ref !== r.name || def.onDelete !== 'restrict') continue;
        if (this.get1(`SELECT 1 AS x FROM ${q(other.table)} WHERE ${q(fname)} = ? LIMIT 1`, [id])) out.push(other.name);
      }
    }
    return [...new Set(out)];
  }

  delete(r: ResourceDef, rawId: string, opts: WriteContext = {}): { id: string } {
    if (!isUuid(rawId)) throw badRequest(ERR.idNotUuid);
    const id = rawId.toLowerCase();
    return this.tx(() => {
      if (!this.exists(r, id)) throw notFound();
      const blocking = this.restrictingRefs(r, id);
      if (blocking.length) throw new ApiError(409, ERR.relatedData, { fields: blocking });
      beginChange(this, r, 'delete', id, opts)?.done();
      try {
        this.run(`DELETE FROM ${q(r.table)} WHERE id = ?`, [id]);
      } catch (e) {
        throw asApiError(r, e);
      }
      return { id };
    });
  }

  // ---------------------------------------------------------------- bulk

  massCreate(r: ResourceDef, items: readonly WriteBody[], opts: WriteOptions = {}): Rec[] {
    return this.tx(() => items.map((it) => this.create(r, it, opts)));
  }

  /** Per-id results; each deletion stands or falls alone (savepoint per id). */
  massDelete(r: ResourceDef, ids: readonly string[], opts: WriteContext = {}): MassResult[] {
    return this.tx(() =>
      ids.map((id) => {
        if (!isUuid(id)) return { id, error_code: MASS.notUuid };
        try {
          this.delete(r, id, opts);
          return { id, error_code: MASS.ok };
        } catch (e) {
          if (isBusy(e)) throw e; // the database, not this object: the whole request is refused (503)
          return { id, error_code: massCode(e) };
        }
      }),
    );
  }

  /** Style 1: one field set on each object, per-object results (savepoint per object). */
  massUpdateField(r: ResourceDef, ids: readonly string[], field: string, value: unknown, opts: WriteOptions = {}): MassResult[] {
    const parsed = this.parseFieldValues(r, { [field]: value });
    return this.tx(() =>
      ids.map((id) => {
        if (!isUuid(id)) return { id, error_code: MASS.notUuid };
        try {
          this.update(r, { id, ...parsed }, opts);
          return { id, error_code: MASS.ok };
        } catch (e) {
          if (isBusy(e)) throw e; // the database, not this object: the whole request is refused (503)
          return { id, error_code: massCode(e) };
        }
      }),
    );
  }

  /** Style 2: several fields on every object, all or nothing. */
  massUpdateFields(r: ResourceDef, ids: readonly string[], fields: Rec, opts: WriteOptions = {}): MassResult[] {
    const parsed = this.parseFieldValues(r, fields);
    for (const id of ids) if (!isUuid(id)) throw badRequest(`${ERR.idNotUuid}: ${id}`);
    return this.tx(() =>
      ids.map((id) => {
        this.update(r, { id, ...parsed }, opts);
        return { id, error_code: MASS.ok };
      }),
    );
  }

  /** Validates loose field values (mass_update) with each field's own schema. */
  parseFieldValues(r: ResourceDef, values: Rec): Rec {
    const out: Rec = {};
    for (const [name, v] of Object.entries(values)) {
      const def = r.fields[name];
      if (!def || def.readOnly) throw badRequest(`unknown field: ${name}`);
      try {
        out[name] = checkValue(r, name, v);
      } catch (e) {
        if (e instanceof FieldInvalid) throw badRequest(`${name}: ${e.message}`);
        throw e;
      }
    }
    return out;
  }

  meta(r: ResourceDef) {
    return {
      name: r.name,
      title: r.title,
      label: r.label,
      fields: fieldsOf(r).map((f: FieldInfo) => ({
        name: f.name,
        type: TYPE_NAMES[f.kind],
        filters: operatorsFor(f),
        required: !!f.def?.required,
        unique: !!f.def?.unique,
        read_only: f.source !== 'stored' || !!f.def?.readOnly,
        ...(f.def?.enum ? { enum: f.def.enum } : {}),
        ...(f.def?.ref ? { ref: f.def.ref } : {}),
        ...(f.def?.maxLength ? { max_length: f.def.maxLength } : {}),
        ...(f.def?.min !== undefined ? { min: f.def.min } : {}),
        ...(f.def?.max !== undefined ? { max: f.def.max } : {}),
        ...(f.def?.description ? { description: f.def.description } : {}),
      })),
      actions: ['create', 'update', 'search', 'get', 'delete', 'group', 'mass_create', 'mass_delete', 'mass_update', 'delete_all'],
      instance_actions: [
        { action: 'update', params: Object.keys(r.fields).filter((n) => !r.fields[n]!.readOnly) },
        { action: 'delete', params: [] },
        ...(r.instanceActions ?? []).map((a) => ({ action: a.action, params: [...a.params] })),
      ],
      relations: relationsOf(r).map(([n]) => n),
      links: relationsOf(r).map(([n, rel]) => ({ name: n, kind: rel.kind, target: rel.target })),
      tree: r.tree ? { parent: r.tree.parent } : null,
    };
  }

  /** Checks a field name for callers outside the search path (e.g. the public API). */
  field(r: ResourceDef, name: string): FieldInfo {
    return requireField(r, name);
  }
}

const TYPE_NAMES: Record<FieldInfo["kind"], string> = {
  uuid: 'uuid',
  string: 'string',
  int: 'integer',
  number: 'float',
  bool: 'boolean',
  timestamp: 'timestamp',
  date: 'date',
  json: 'json',
};

const relationNames = (rels: Record<string, unknown> | undefined): string[] => (rels ? Object.keys(rels).filter((k) => rels[k] !== undefined) : []);

function massCode(e: unknown): number {
  if (e instanceof ApiError) {
    if (e.status === 404) return MASS.nothingAffected;
    if (e.status === 409 && e.message === ERR.relatedData) return MASS.relatedData;
    if (e.status === 400 && e.message === ERR.idNotUuid) return MASS.notUuid;
    if (e.status === 400 && e.message.startsWith('incorrect relation identifiers')) return MASS.relatedData;
    return MASS.storage;
  }
  return MASS.storage;
}
