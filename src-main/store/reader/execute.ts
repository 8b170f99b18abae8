// A read task and how it runs: a compiled plan (its page, its stats or a grouping of it) executed on a Store and
// answered as the route's JSON text. The same code runs in this thread (an in-memory database,
// or readers switched off) and in a reader thread (reader.ts).
import { ApiError } from '../../../src-shared/errors';
import type { Plan } from '../query/plan';
import type { GroupPage } from '../query/groups';
import { Runner } from '../query/runner';
import type { StatBucket } from '../query/stats';
import type { Store } from '../store';

export type ReadTask =
  | {
      kind: 'page';
      plan: Plan;
      /** The answer's shape: v2 `{items, total}` or public `{objects, total}`. */
      shape: 'items' | 'objects';
      /** front_link of each public record: prefix + id + suffix. */
      link?: { prefix: string; suffix: string };
    }
  | { kind: 'stats'; plan: Plan; bucket: StatBucket | 'auto' }
  /** The group operation: a plan's matches grouped by a field (query/runner.ts, compileGroup). */
  | { kind: 'group'; plan: Plan; field: string; page?: GroupPage };

/**
 * Runs a task and answers the JSON text of its answer. `version` is the data version the task
 * reads when the caller opened a read transaction around it (see reader.ts); default: now.
 */
export function executeRead(store: Store, task: ReadTask, version: string | null = store.version()): string {
  const runner = new Runner(store);
  if (task.kind === 'stats') return JSON.stringify(runner.stats(task.plan, task.bucket, version));
  if (task.kind === 'group') return JSON.stringify(runner.groupPlan(task.plan, task.field, version, task.page));
  const { items, total } = runner.page(task.plan, { version });
  if (task.shape === 'items') return JSON.stringify({ items, total });
  const link = task.link;
  return JSON.stringify({ objects: link ? items.map((o) => ({ ...o, front_link: `${link.prefix}${String(o.id)}${link.suffix}` })) : items, total });
}

/** A failure as it crosses threads: an API error keeps its status and text; anything else is a 500. */
export type ReadFailure = { api: { status: number; message: string; extra?: { fields: string[] } } } | { internal: { message: string; code?: string } };

export function toFailure(e: unknown): ReadFailure {
  if (e instanceof ApiError) return { api: { status: e.status, message: e.message, extra: e.extra } };
  const err = e as { message?: string; code?: string };
  return { internal: { message: String(err?.message ?? e), code: err?.code } };
}

export function fromFailure(f: ReadFailure): Error {
  if ('api' in f) return new ApiError(f.api.status, f.api.message, f.api.extra);
  return Object.assign(new Error(f.internal.message), f.internal.code ? { code: f.internal.code } : {});
}
