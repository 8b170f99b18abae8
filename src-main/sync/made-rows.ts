// Push: what names a row the platform makes itself (a message giving the reason of a status
// change names that change's status-change row). The copy's row L exists only here; the
// platform makes its own row P when the status update reaches it. So:
//
// - before a status update whose row L is named by an entry of the outbox is sent, the
//   platform's rows of that incident are read (the probe) and kept in sync_ids with L, durably,
//   in the transaction that marks the update `sending`;
// - after the update, the platform's rows are read again: P is the new row with the status sent
//   (of several, the one whose previous status is the one before, then the newest by the
//   platform's clock); sync_ids keeps P for L, so an interrupted push never guesses again;
// - entries naming L go after the updates, naming P; where the platform made no row for L (it
//   had the status already, or L was an intermediate change of one push), they go with the
//   reference empty and their text intact, and the push says so; while the status change is
//   itself a conflict, failed or not chosen, they wait.
import { getResource } from '../../src-shared/resources/index';
import type { Db } from '../store/connection';
import { madeRow, newestLocalMadeRow, PLATFORM_MADE, platformMadeRefs, platformMadeReferrers, type PlatformMade } from '../store/kinds/index';
import type { OutboxRow } from '../store/outbox';
import { ActiveEntries } from '../store/outbox-log';
import { SyncIds, type SyncIdRow } from '../store/origin';
import type { OriginApi, Rec } from './origin-api';

/** A request of a push, as far as this module needs it. */
export interface MadeTask {
  resource: string;
  id: string;
  body?: Rec;
  entries: OutboxRow[];
}

interface Probe {
  ids: string[];
  before: unknown;
}

type IdRow = SyncIdRow;

export interface BatchPlan<T extends MadeTask> {
  /** Tasks sent after the updates, once the platform's rows are known. */
  later: Set<T>;
  /** Tasks not sent now (their status change is not being pushed), with why. */
  waits: [T, string][];
  /** Rows to note before sending (written with markSending). */
  probes: IdRow[];
}

const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

export class MadeRows {
  private readonly ids: SyncIds;
  private readonly active: ActiveEntries;

  constructor(
    private readonly db: Db,
    private readonly api: OriginApi,
  ) {
    this.ids = new SyncIds(db);
    this.active = new ActiveEntries(db);
  }

  private row(made: PlatformMade, id: string): Rec | undefined {
    return madeRow(this.db, made, id);
  }

  /** The newest row made here for the parent's change to `value`, or undefined. */
  private localRowFor(made: PlatformMade, parent: string, value: unknown): string | undefined {
    return newestLocalMadeRow(this.db, made, parent, value);
  }

  /** Local-only platform-made rows named by entries of the outbox. */
  private namedRows(): Set<string> {
    const fields = new Map<string, string[]>();
    for (const r of platformMadeReferrers()) fields.set(r.name, platformMadeRefs(r).map((x) => x.field));
    const out = new Set<string>();
    for (const e of this.active.ofResources([...fields.keys()])) {
      const names = fields.get(e.resource)!;
      if (e.op === 'create') {
        const rec = (parse(e.after) ?? {}) as Rec;
        for (const f of names) if (typeof rec[f] === 'string') out.add(String(rec[f]).toLowerCase());
      } else if (e.op === 'update' && names.includes(e.field)) {
        const v = parse(e.after);
        if (typeof v === 'string') out.add(v.toLowerCase());
      }
    }
    return out;
  }

  /** The platform's rows of these parents (id, parent, value, previous value, created_at); null when it cannot be read. */
  private async originRows(made: PlatformMade, parents: readonly string[]): Promise<Map<string, Rec[]> | null> {
    if (!parents.length) return new Map();
    const rows = await this.api.byRelated(made.resource, made.parentFk, parents);
    if (!rows) return null;
    const by = new Map<string, Rec[]>();
    for (const r of rows) {
      const p = String(r[made.parentFk] ?? '').toLowerCase();
      by.set(p, [...(by.get(p) ?? []), r]);
    }
    return by;
  }

  /** The platform's row for a change: new since the probe, with the value sent; '' when there is none. */
  private static pick(made: PlatformMade, probe: Probe, value: unknown, now: readonly Rec[]): string {
    const seen = new Set(probe.ids);
    const fresh = now.filter((r) => !seen.has(String(r.id).toLowerCase()) && r[made.valueField] === value);
    if (!fresh.length) return '';
    fresh.sort(
      (a, b) =>
        Number(b[made.previousField] === probe.before) - Number(a[made.previousField] === probe.before) ||
        String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')) ||
        String(a.id).localeCompare(String(b.id)),
    );
    return String(fresh[0]!.id).toLowerCase();
  }

  /**
   * Finds the platform's rows for noted changes whose update has been confirmed (by this push or
   * an earlier one that was interrupted before it looked); `parents` limits it to those.
   */
  async settle(parents?: ReadonlySet<string>): Promise<void> {
    const open = this.ids.open().filter((x) => !parents || parents.has(x.parent_id));
    for (const made of PLATFORM_MADE) {
      const mine = open.filter((x) => x.resource === made.resource && !this.active.ofField(made.parent, x.parent_id, made.parentField));
      if (!mine.length) continue;
      const rows = await this.originRows(made, [...new Set(mine.map((x) => x.parent_id))]);
      this.ids.resolveAll(
        mine.map((x) => ({
          resource: x.resource,
          local_id: x.local_id,
          remote_id: rows ? MadeRows.pick(made, JSON.parse(x.probe) as Probe, parse(x.value), rows.get(x.parent_id) ?? []) : '',
        })),
      );
    }
  }

  /**
   * Plans a batch: probes for the status updates about to be sent whose row is named, and what
   * happens to each task naming a row made here (named as is, named by the platform's row,
   * sent after the updates, sent unlinked, or waiting). Bodies are changed in place; notes of
   * unlinked tasks are added to `unlinked`.
   */
  async plan<T extends MadeTask>(tasks: readonly T[], decided: ReadonlyMap<number, 'confirm' | 'conflict' | 'failed'>, unlinked: Map<T, string[]>): Promise<BatchPlan<T>> {
    const out: BatchPlan<T> = { later: new Set(), waits: [], probes: [] };
    const referring = tasks.filter((t) => t.body && platformMadeRefs(getResource(t.resource)).some(({ field }) => typeof t.body![field] === 'string'));
    const named = referring.length || tasks.some((t) => PLATFORM_MADE.some((m) => m.parent === t.resource)) ? this.namedRows() : new Set<string>();
    // Probes: parents whose change is sent now and whose row made here is named somewhere.
    const target = new Map<string, string>(); // `${made.resource}:${parent}` -> L
    if (named.size) {
      for (const made of PLATFORM_MADE) {
        const sending: { parent: string; value: unknown; before: unknown; local: string }[] = [];
        for (const t of tasks) {
          if (t.resource !== made.parent) continue;
          const e = t.entries.find((x) => x.op === 'update' && x.field === made.parentField);
          if (!e) continue;
          const value = parse(e.after);
          const local = this.localRowFor(made, t.id, value);
          if (!local || !named.has(local)) continue;
          target.set(`${made.resource}:${t.id}`, local);
          const known = this.ids.get(made.resource, local);
          if (!known) sending.push({ parent: t.id, value, before: parse(e.before), local });
        }
        if (!sending.length) continue;
        const rows = await this.originRows(made, sending.map((x) => x.parent));
        for (const x of sending) {
          const probe: Probe = { ids: (rows?.get(x.parent) ?? []).map((r) => String(r.id).toLowerCase()), before: x.before };
          out.probes.push({ resource: made.resource, local_id: x.local, parent_id: x.parent, value: JSON.stringify(x.value), probe: JSON.stringify(probe), remote_id: rows ? null : '' });
        }
      }
    }
    const sendingParents = new Set(tasks.map((t) => `${t.resource}:${t.id}`));
    for (const t of referring) {
      for (const { field, made } of platformMadeRefs(getResource(t.resource))) {
        const v = t.body![field];
        if (typeof v !== 'string') continue;
        const local = v.toLowerCase();
        if (this.ids.copied(made.resource, local)) continue; // the platform's own row
        const row = this.row(made, local);
        if (!row) continue;
        const parent = String(row[made.parentFk] ?? '').toLowerCase();
        const unlink = (why: string) => {
          t.body![field] = null;
          unlinked.set(t, [...(unlinked.get(t) ?? []), `${t.resource} ${t.id}: sent without ${field} (${why})`]);
        };
        const known = this.ids.get(made.resource, local) ?? out.probes.find((x) => x.resource === made.resource && x.local_id === local);
        const parentSent = sendingParents.has(`${made.parent}:${parent}`) && tasks.some((x) => x.resource === made.parent && x.id === parent && x.entries.some((e) => e.field === made.parentField));
        if (known?.remote_id) {
          t.body![field] = known.remote_id;
          continue;
        }
        if (known?.remote_id === '') {
          unlink('the platform made no row for that change');
          continue;
        }
        if (parentSent && (known || target.get(`${made.resource}:${parent}`) === local)) {
          out.later.add(t);
          continue;
        }
        if (parentSent) {
          unlink('the change it names was changed again before the push; the platform has only the last one');
          continue;
        }
        const entry = this.active.ofField(made.parent, parent, made.parentField);
        const fate = entry ? decided.get(entry.seq) : undefined;
        if (entry && fate !== 'confirm') {
          out.waits.push([t, `waits for the ${made.parentField} change of ${made.parent} ${parent} to be pushed`]);
          continue;
        }
        if (known) {
          // Probed when its change was sent by an interrupted push: found from that probe once confirmed.
          out.later.add(t);
          continue;
        }
        unlink(entry ? 'the platform already had that status: it made no row for it' : 'the platform made no row for that change');
      }
    }
    return out;
  }

  /** Notes the probes (in the transaction marking the updates `sending`). */
  writeProbes(probes: readonly IdRow[]): void {
    for (const x of probes) this.ids.put(x);
  }

  /** Bodies of tasks sent after the updates: the platform's rows in place of those made here. */
  fill<T extends MadeTask>(t: T, unlinked: Map<T, string[]>): void {
    for (const { field, made } of platformMadeRefs(getResource(t.resource))) {
      const v = t.body?.[field];
      if (typeof v !== 'string') continue;
      const known = this.ids.get(made.resource, v.toLowerCase());
      if (!known || known.remote_id === null) continue; // the update was not confirmed: sent as is would be refused
      if (known.remote_id) t.body![field] = known.remote_id;
      else {
        t.body![field] = null;
        unlinked.set(t, [...(unlinked.get(t) ?? []), `${t.resource} ${t.id}: sent without ${field} (no new row of the platform was found for that change)`]);
      }
    }
  }

  /** Whether a task still names a row only this copy has (its change was not confirmed). */
  stillLocal(t: MadeTask): boolean {
    return platformMadeRefs(getResource(t.resource)).some(({ field, made }) => {
      const v = t.body?.[field];
      return typeof v === 'string' && !this.ids.copied(made.resource, v.toLowerCase()) && !!this.row(made, v.toLowerCase());
    });
  }
}
