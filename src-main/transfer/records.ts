// Reading records into the store's bulk write: ids, timestamps, unknown keys, records nested in
// others (the public incident's asset and occurrences, v2 `relations`, `_relations`), each
// field checked by the write path's checks; the bulk write's refusals worded with the place of
// the record in its file. An import, a snapshot and a pull each write through one of these.
import crypto from 'node:crypto';
import { getResource, type RelationDef } from '../../src-shared/resources/index';
import { isBusy } from '../store/db';
import { Store } from '../store/store';
import { BulkCancelled, MissingReferences, WriteRefusal, type BulkWrite, type Counts } from '../store/write/bulk';
import { missingRequired } from '../store/write/checks';
import { CancelledError, TransferError, type Where } from './errors';
import { checkField, fastTs, FieldInvalid, ID_RE, isMasked, missingReferencesMessage, planOf, type ImportInvocation, type KindPlan } from './validate';

export type { Counts } from '../store/write/bulk';

export interface RecordImportOptions {
  /** Who is writing: records from files (`import`) or from the origin of a snapshot (`origin`). */
  source?: 'import' | 'origin';
  /** Skip fields the registry does not know (counted in ignoredFields) instead of refusing. */
  ignoreUnknown?: boolean;
  /** Refuse unresolved optional references too, instead of clearing them. */
  strictReferences?: boolean;
  /** SQLite page cache of the import connection, in KiB. */
  cacheKiB?: number;
  /** Into a snapshot: record the records created or changed as changes to push (its outbox). */
  recordChanges?: boolean;
  /** How the import was asked for (its refusals suggest commands to run as printed). */
  invocation?: ImportInvocation;
}

/** Where a record is, worked out only when a message needs it. */
export interface At {
  where(): Where;
}

export const at = (w: Where): At => ({ where: () => w });

/** The place of a record nested in another (`objects[3].occurrences[0]`). */
function nestedAt(parent: At, name: string): At {
  return {
    where: () => {
      const w = parent.where();
      return { ...w, record: `${w.record ?? (w.line !== undefined ? `line ${w.line}` : '')}.${name}` };
    },
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The place of a refusal of the bulk write: the record's place in its file, its id and field. */
function whereOf(e: WriteRefusal): Where {
  const loc = e.loc as At | undefined;
  return { ...(loc ? loc.where() : {}), ...(e.id ? { id: e.id } : {}), ...(e.field ? { field: e.field } : {}) };
}

export class RecordImport {
  readonly store: Store;
  readonly created: boolean;
  private readonly bulk: BulkWrite;
  private readonly nestedSeen = new Map<string, string>();
  records = 0;
  generatedIds = 0;
  ignoredFields: Record<string, number> = {};

  constructor(
    readonly file: string,
    private readonly opts: RecordImportOptions = {},
  ) {
    const { store, created } = Store.openForBulk(file, { busyTimeoutMs: 5000, cacheKiB: opts.cacheKiB });
    this.store = store;
    this.created = created;
    this.bulk = store.bulk({ source: opts.source ?? 'import', record: opts.recordChanges, strictReferences: opts.strictReferences });
  }

  get db() {
    return this.store.db;
  }
  get counts(): Record<string, Counts> {
    return this.bulk.counts;
  }
  set counts(c: Record<string, Counts>) {
    this.bulk.counts = c;
  }
  get clearedReferences(): Record<string, number> {
    return this.bulk.clearedReferences;
  }
  set clearedReferences(c: Record<string, number>) {
    this.bulk.clearedReferences = c;
  }
  get linkLists(): number {
    return this.bulk.linkLists;
  }
  get outboxEntries(): number | null {
    return this.bulk.outboxEntries;
  }
  get committed(): boolean {
    return this.bulk.committed;
  }

  begin(): void {
    try {
      this.bulk.begin();
    } catch (e) {
      if (isBusy(e)) throw new TransferError(`${this.file} is busy: another import or a long write holds it; try again when it has finished`, {}, 503);
      if (e instanceof WriteRefusal) throw new TransferError(e.message);
      throw e;
    }
    this.nestedSeen.clear();
  }

  private put(r: KindPlan['r'], id: string, vals: Record<string, unknown>, createdAt: string | null, updatedAt: string | null, loc: At): void {
    try {
      this.bulk.put(r, id, vals, createdAt, updatedAt, loc);
    } catch (e) {
      if (e instanceof WriteRefusal) throw new TransferError(e.message, whereOf(e));
      throw e;
    }
  }

  /**
   * Checks a record of `plan`'s resource and queues it; nested records (loaded relations: the
   * public incident's service_asset and occurrences, v2 `relations`) are imported with it.
   */
  add(plan: KindPlan, rec: Record<string, unknown>, loc: At): string {
    const r = plan.r;
    this.records++;
    let id: string;
    const rawId = rec.id;
    if (rawId === undefined || rawId === null) {
      id = crypto.randomUUID();
      this.generatedIds++;
    } else if (typeof rawId === 'string' && ID_RE.test(rawId)) {
      id = rawId.toLowerCase();
    } else {
      throw new TransferError('id should be uuid format', { ...loc.where(), field: 'id' });
    }
    const w = (field?: string): Where => ({ ...loc.where(), id, ...(field ? { field } : {}) });
    const vals: Record<string, unknown> = {};
    let createdAt: string | null = null;
    let updatedAt: string | null = null;
    let nested: [string, RelationDef, unknown][] | null = null;
    let relIds: Record<string, unknown> | null = null;
    for (const key in rec) {
      const v = rec[key];
      const ci = plan.index.get(key);
      if (ci !== undefined) {
        const col = plan.columns[ci]!;
        if (v === undefined || isMasked(col, v)) continue;
        try {
          vals[key] = checkField(plan, col, v);
        } catch (e) {
          if (e instanceof FieldInvalid) throw new TransferError(e.message, w(key));
          throw e;
        }
        continue;
      }
      switch (key) {
        case 'id':
          continue;
        case 'created_at':
        case 'updated_at': {
          if (v === null || v === undefined) continue;
          const t = typeof v === 'string' ? fastTs(v) : null;
          if (t === null) throw new TransferError('expected an ISO 8601 timestamp', w(key));
          if (key === 'created_at') createdAt = t;
          else updatedAt = t;
          continue;
        }
        case '_relations':
          if (v === null || v === undefined) continue;
          if (!isPlainObject(v)) throw new TransferError('_relations should be an object of id lists', w(key));
          relIds = v;
          continue;
        default:
          break;
      }
      const rel = plan.relations.get(key);
      if (rel) {
        // The public incident's `last_occurrence` is a computed time, the v2 one a loaded relation.
        if (plan.computed.has(key) && (typeof v !== 'object' || v === null)) continue;
        if (v !== null && v !== undefined) (nested ??= []).push([key, rel, v]);
        continue;
      }
      if (plan.computed.has(key)) continue;
      if (this.opts.ignoreUnknown) {
        const k = `${r.name}.${key}`;
        this.ignoredFields[k] = (this.ignoredFields[k] ?? 0) + 1;
        continue;
      }
      throw new TransferError(`unknown field for ${r.name}`, w(key));
    }
    const missing = missingRequired(r, vals, 'bulk');
    if (missing) throw new TransferError(`${missing} is required`, w(missing));
    // One-to-one relations loaded in the record: the related record is imported and referenced.
    const later: [string, RelationDef, unknown][] = [];
    if (nested) {
      for (const [name, rel, v] of nested) {
        if (rel.kind !== 'belongsTo') {
          later.push([name, rel, v]);
          continue;
        }
        if (!isPlainObject(v)) throw new TransferError(`expected the related ${rel.target} record (an object)`, w(name));
        const childAt = nestedAt(loc, name);
        const childId = this.addNested(planOf(getResource(rel.target)), v, childAt);
        const fk = vals[rel.fk];
        if (fk === undefined || fk === null) vals[rel.fk] = childId;
        else if (fk !== childId) throw new TransferError(`${rel.fk} ${String(fk)} is not the id of the ${name} given with it (${childId})`, w(rel.fk));
      }
    }
    this.put(r, id, vals, createdAt, updatedAt, loc);
    // Has-many and many-to-many relations loaded in the record.
    const linkLists = new Map<string, string[]>();
    for (const [name, rel, v] of later) {
      if (!Array.isArray(v)) throw new TransferError(`expected a list of related ${rel.target} records`, w(name));
      const target = planOf(getResource(rel.target));
      const ids: string[] = [];
      v.forEach((child, i) => {
        if (!isPlainObject(child)) throw new TransferError(`expected a related ${rel.target} record (an object)`, w(`${name}[${i}]`));
        const childAt = nestedAt(loc, `${name}[${i}]`);
        if (rel.kind === 'hasMany') {
          const fk = child[rel.fk];
          if (fk === undefined || fk === null) child = { ...child, [rel.fk]: id };
          else if (typeof fk !== 'string' || fk.toLowerCase() !== id) {
            throw new TransferError(`${rel.fk} should be the id of the record it is listed in (${id})`, { ...childAt.where(), field: rel.fk });
          }
          this.add(target, child, childAt);
        } else {
          ids.push(this.addNested(target, child, childAt));
        }
      });
      if (rel.kind === 'manyToMany') linkLists.set(name, ids);
    }
    if (relIds) {
      for (const [name, list] of Object.entries(relIds)) {
        const rel = plan.relations.get(name);
        if (!rel || rel.kind === 'belongsTo') throw new TransferError(`unknown relation in _relations: ${name}`, w('_relations'));
        if (rel.kind === 'hasMany') continue; // the related records carry their own reference
        if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || !ID_RE.test(x))) {
          throw new TransferError(`_relations.${name} should be a list of uuids`, w('_relations'));
        }
        linkLists.set(name, (list as string[]).map((x) => x.toLowerCase()));
      }
    }
    for (const [name, ids] of linkLists) this.bulk.links(r, id, name, ids);
    return id;
  }

  /** A record met inside another; identical repeats (an asset in many incidents) are skipped early. */
  private addNested(plan: KindPlan, rec: Record<string, unknown>, where: At): string {
    const rawId = rec.id;
    if (typeof rawId === 'string' && ID_RE.test(rawId)) {
      const key = `${plan.r.name}:${rawId.toLowerCase()}`;
      const sig = JSON.stringify(rec);
      const seen = this.nestedSeen.get(key);
      if (seen === sig) {
        this.records++;
        this.bulk.countsOf(plan.r.name).repeated++;
        return rawId.toLowerCase();
      }
      if (this.nestedSeen.size >= 50_000) this.nestedSeen.delete(this.nestedSeen.keys().next().value!);
      if (seen === undefined) this.nestedSeen.set(key, sig);
    }
    return this.add(plan, rec, where);
  }

  /** Indexes, checks references and commits; a refusal is worded and everything rolled back. */
  async commit(opts: { signal?: AbortSignal; onPhase?: (phase: string, done: number, total: number) => void } = {}): Promise<void> {
    try {
      await this.bulk.commit(opts);
    } catch (e) {
      if (e instanceof BulkCancelled) throw new CancelledError();
      if (e instanceof MissingReferences) {
        const first = e.list[0]!;
        throw new TransferError(missingReferencesMessage(e.list, this.opts.invocation), { record: first.from, id: first.id, field: first.field });
      }
      if (e instanceof WriteRefusal) throw new TransferError(e.message, whereOf(e));
      throw e;
    }
  }

  rollback(): void {
    this.bulk.rollback();
  }

  close(): void {
    this.bulk.close();
  }
}
