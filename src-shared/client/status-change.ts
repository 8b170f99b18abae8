// A status change with its reason on a platform that has no such operation (a remote platform):
// the message is linked to the status-change row the platform made for the change, found by
// what the platform answered, never by this machine's clock. The rows of the incidents with the
// new status are read before and after the change; a row present only after is the change's
// (of several, the one whose previous status is the incident's status before, then the newest
// by the platform's own created_at, then by id). Local databases and snapshots have the
// operation itself (POST /console/v1/incidents/status): one request, one transaction.
import type { IncidentStatus } from '../resources/fields';
import { K } from '../resources/kinds';
import type { StatusChangeAnswer } from '../schemas/incident-status';

type Rec = Record<string, unknown> & { id: string };

/** The platform's data-management calls the change needs (the typed client's, for one target). */
export interface PlatformCalls {
  search(resource: string, req: Record<string, unknown>): Promise<{ items: Rec[]; total: number }>;
  massUpdate(resource: string, ids: string[], field: string, value: unknown): Promise<{ results: { id: string; error_code: number }[] }>;
  massCreate(resource: string, items: Record<string, unknown>[]): Promise<{ items: Rec[] }>;
}

export interface StatusNoteInput {
  subject: string;
  body?: string;
}

export interface StatusChangeOptions {
  /** Each incident's status before the change, when the caller knows it (read otherwise). */
  before?: ReadonlyMap<string, string> | Record<string, string>;
  /** The message's sender (a user uuid). */
  senderId?: string | null;
}

const PAGE = 1000;
const STATUS_CHANGES = K.statusChange;

const request = (filters: unknown[], include: string[], offset: number) => ({
  include_fields: include,
  exclude_fields: [],
  filters,
  ordering: [{ field: 'id', direction: 'asc' }],
  virtual_search: { value: '', strict: false },
  extension_params: { chidlrens_all: false, parents_all: false },
  relations: [],
  limit: PAGE,
  offset,
});

async function all(p: PlatformCalls, resource: string, filters: unknown[], include: string[]): Promise<Rec[]> {
  const out: Rec[] = [];
  for (let offset = 0; ; ) {
    const page = await p.search(resource, request(filters, include, offset));
    out.push(...page.items);
    offset += page.items.length;
    if (!page.items.length || offset >= page.total) return out;
  }
}

/** The incidents' status-change rows with `status`, by incident. */
async function rowsWith(p: PlatformCalls, ids: readonly string[], status: string): Promise<Map<string, Rec[]>> {
  const rows = await all(
    p,
    STATUS_CHANGES,
    [
      { field: 'service_asset_finding_id', filter_type: 'intersection', value: ids },
      { field: 'status', filter_type: 'equal', value: status },
    ],
    ['id', 'service_asset_finding_id', 'status', 'previous_status', 'created_at'],
  );
  const by = new Map<string, Rec[]>();
  for (const r of rows) {
    const inc = String(r.service_asset_finding_id).toLowerCase();
    by.set(inc, [...(by.get(inc) ?? []), r]);
  }
  return by;
}

/** The row a change made: present after and not before; null when the platform made none. */
export function rowOfChange(before: readonly Rec[], after: readonly Rec[], previous: string | undefined): string | null {
  const seen = new Set(before.map((r) => r.id.toLowerCase()));
  const fresh = after.filter((r) => !seen.has(r.id.toLowerCase()));
  if (!fresh.length) return null;
  fresh.sort(
    (a, b) =>
      Number(b.previous_status === previous) - Number(a.previous_status === previous) ||
      String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')) ||
      a.id.localeCompare(b.id),
  );
  return fresh[0]!.id;
}

/**
 * Sets `status` on the incidents of a platform through its data-management API and keeps `note`
 * as a message linked to each incident's new status-change row. Answers as the local operation
 * does (`results` per id, `changed`).
 */
export async function changeStatusOnPlatform(p: PlatformCalls, rawIds: readonly string[], status: IncidentStatus, note?: StatusNoteInput, o: StatusChangeOptions = {}): Promise<StatusChangeAnswer> {
  const ids = [...new Set(rawIds.map((x) => x.toLowerCase()))];
  const given = o.before instanceof Map ? o.before : new Map(Object.entries(o.before ?? {}));
  const previous = new Map<string, string>();
  for (const id of ids) {
    const v = given.get(id) ?? given.get(id.toUpperCase());
    if (v !== undefined) previous.set(id, v);
  }
  const unknown = ids.filter((id) => !previous.has(id));
  if (unknown.length) {
    for (const r of await all(p, K.incident, [{ field: 'id', filter_type: 'intersection', value: unknown }], ['id', 'status'])) previous.set(r.id.toLowerCase(), String(r.status));
  }
  const before = await rowsWith(p, ids, status);
  const codes = new Map((await p.massUpdate(K.incident, ids, 'status', status)).results.map((r) => [r.id.toLowerCase(), r.error_code]));
  const after = await rowsWith(p, ids, status);
  const results = ids.map((id) => {
    const code = codes.get(id) ?? 11003;
    const row = code === 0 && previous.get(id) !== status ? rowOfChange(before.get(id) ?? [], after.get(id) ?? [], previous.get(id)) : null;
    return { id, error_code: code, status_change_id: row, message_id: null as string | null };
  });
  const ok = results.filter((r) => r.error_code === 0);
  if (note && ok.length) {
    const made = await p.massCreate(
      K.message,
      ok.map((r) => ({
        subject: note.subject,
        body: note.body ?? '',
        service_asset_finding_id: r.id,
        service_asset_finding_status_change_id: r.status_change_id,
        automated: false,
        sender_id: o.senderId ?? null,
      })),
    );
    ok.forEach((r, i) => (r.message_id = made.items[i]?.id ?? null));
  }
  return { results, changed: ok.filter((r) => previous.get(r.id) !== status).length };
}
