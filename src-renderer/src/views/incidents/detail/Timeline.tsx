// The incident as one story, oldest first: its creation, every status change with who made it
// and the reason and comment beside it, the messages (written or automated), the acknowledgement,
// the custom field values with when they were last set, and, on a snapshot, the changes made
// here and not yet pushed (owner, group, risk, notes, custom fields: who and when). The message
// composer and the notes follow it.
//
// What the platform records decides what can be shown: a status change is a row of its own (who,
// when, from, to); a message has its sender and time; an owner or group change and a custom field
// change leave no row, only the incident's (or the value's) last update time — so those appear as
// "last set" without a who, except where a snapshot's outbox recorded them.
import { useEffect, useState } from 'react';
import type { OutboxEntry } from '../../../../../src-shared/schemas/sync';
import type { Rec } from '../../../api/radar';
import { syncEntries } from '../../../api/sync';
import { StatusBadge } from '../../../components/Badges';
import { useI18n } from '../../../i18n';
import { formatDateTime, formatNumber } from '../../../i18n/format';
import { useInstances } from '../../../state/instances';
import { groupName, personName, usePeople } from '../../../state/people';
import { useSession } from '../../../state/session';
import { useSync } from '../../../state/sync';
import { Composer, Notes } from './Conversation';
import { customFieldValuesOf } from './CustomFields';

const s = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

type Event =
  | { kind: 'status'; at: string; who: string | null; from: string | null; to: string; notes: Rec[]; id: string }
  | { kind: 'message'; at: string; who: string | null; automated: boolean; subject: string; body: string; id: string }
  | { kind: 'ack'; at: string; who: string | null; id: string }
  | { kind: 'field'; at: string; title: string; value: string; set: boolean; id: string }
  | { kind: 'local'; at: string; who: string | null; field: string; before: unknown; after: unknown; id: string };

const VALUE_COLUMNS = ['string_value', 'integer_value', 'float_value', 'date_value', 'boolean_value', 'json_value'] as const;

function cfValue(v: Rec): string {
  for (const c of VALUE_COLUMNS) {
    const x = v[c];
    if (x !== null && x !== undefined) return typeof x === 'object' ? JSON.stringify(x) : String(x);
  }
  return '';
}

/** The custom field values of the incident and, on a snapshot, its changes made here. */
function useExtra(instance: string, incidentId: string, seq: number) {
  const api = useSession((st) => st.api);
  const mainId = useInstances((st) => st.mainId);
  const snapshotId = instance === 'main' ? (mainId ?? 'main') : instance;
  const isSnapshot = useSync((st) => !!st.snapshots[snapshotId]);
  const [values, setValues] = useState<Rec[]>([]);
  const [local, setLocal] = useState<OutboxEntry[]>([]);
  useEffect(() => {
    if (!api) return;
    const ctl = new AbortController();
    customFieldValuesOf(api, instance, incidentId, ctl.signal).then(setValues, () => setValues([]));
    if (isSnapshot) {
      Promise.all([
        syncEntries(api, snapshotId, { resource: 'service_asset_findings', record_id: incidentId, limit: 200 }, ctl.signal),
        syncEntries(api, snapshotId, { resource: 'custom_field_values', limit: 1000 }, ctl.signal),
      ]).then(
        ([mine, cf]) => setLocal([...mine.items, ...cf.items]),
        () => setLocal([]),
      );
    } else setLocal([]);
    return () => ctl.abort();
  }, [api, instance, incidentId, seq, isSnapshot, snapshotId]);
  return { values, local };
}

export function Timeline({ incident, instance, seq, onChanged }: { incident: Rec & { _instance: string }; instance: string; seq: number; onChanged(): void }) {
  const { t, lang } = useI18n();
  usePeople((st) => st.version);
  const { values, local } = useExtra(instance, incident.id, seq);
  const changes = Array.isArray(incident.status_changes) ? (incident.status_changes as Rec[]) : [];
  const messages = Array.isArray(incident.messages) ? (incident.messages as Rec[]) : [];
  const notesByChange = new Map<string, Rec[]>();
  for (const m of messages) {
    const c = s(m.service_asset_finding_status_change_id);
    if (c && changes.some((x) => x.id === c)) notesByChange.set(c, [...(notesByChange.get(c) ?? []), m]);
  }
  const cfIds = new Set(values.map((v) => v.id));
  const events: Event[] = [
    ...changes.map((c): Event => ({ kind: 'status', at: s(c.created_at), who: c.user_id ? s(c.user_id) : null, from: c.previous_status ? s(c.previous_status) : null, to: s(c.status), notes: notesByChange.get(c.id) ?? [], id: c.id })),
    ...messages
      .filter((m) => !changes.some((c) => c.id === m.service_asset_finding_status_change_id))
      .map((m): Event => ({ kind: 'message', at: s(m.created_at), who: m.sender_id ? s(m.sender_id) : null, automated: m.automated === true, subject: s(m.subject), body: s(m.body), id: m.id })),
    ...(incident.acknowledged_at ? [{ kind: 'ack' as const, at: s(incident.acknowledged_at), who: incident.acknowledged_by ? s(incident.acknowledged_by) : null, id: 'ack' }] : []),
    ...values.map((v): Event => {
      const f = (v.custom_field ?? {}) as Rec;
      return { kind: 'field', at: s(v.updated_at ?? v.created_at), title: s(f.title ?? f.field_key ?? v.custom_field_id), value: cfValue(v), set: s(v.updated_at) === s(v.created_at), id: v.id };
    }),
    ...local
      .filter((e) => e.op === 'update' && e.field !== 'status' && (e.resource === 'service_asset_findings' || cfIds.has(e.record_id)))
      .map((e): Event => ({ kind: 'local', at: e.changed_at, who: e.user_id, field: e.resource === 'custom_field_values' ? s((values.find((v) => v.id === e.record_id)?.custom_field as Rec | undefined)?.title ?? e.field) : e.field, before: e.before, after: e.after, id: `local-${e.seq}` })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.kind === 'status' ? -1 : 1));
  const who = (id: string | null) => (id ? (personName(instance, id, true) ?? id) : null);
  const show = (field: string, v: unknown): string => {
    if (v === null || v === undefined || v === '') return '—';
    if (field === 'user_id') return personName(instance, s(v), true) ?? s(v);
    if (field === 'group_id') return groupName(instance, s(v)) ?? s(v);
    if (field === 'risklevel') return formatNumber(lang, Number(v), 1);
    return typeof v === 'object' ? JSON.stringify(v) : s(v);
  };
  return (
    <div className="timeline-wrap">
      <ol className="timeline" aria-label={t('timeline.label')} data-testid="timeline">
        {events.map((e) => (
          <li key={`${e.kind}-${e.id}`} className={`tl-item tl-${e.kind}`} data-testid={e.kind === 'status' ? 'history-item' : e.kind === 'message' ? 'message' : `timeline-${e.kind}`}>
            <span className="tl-dot" aria-hidden="true" />
            <div className="tl-head">
              <span className="tl-what">
                {e.kind === 'status' &&
                  (e.from ? (
                    <>
                      {t('timeline.status')} <StatusBadge status={e.from} /> → <StatusBadge status={e.to} />
                    </>
                  ) : (
                    <>
                      {t('timeline.created')} <StatusBadge status={e.to} />
                    </>
                  ))}
                {e.kind === 'message' && (e.automated ? t('timeline.automated') : t('timeline.message'))}
                {e.kind === 'ack' && t('timeline.acknowledged')}
                {e.kind === 'field' && t(e.set ? 'timeline.fieldSet' : 'timeline.fieldChanged', { field: e.title })}
                {e.kind === 'local' && t('timeline.localChange', { field: t(`fields.${e.field === 'user_id' ? 'owner' : e.field === 'group_id' ? 'group' : e.field}`, { defaultValue: e.field }) })}
              </span>
              <span className="tl-who">
                {e.kind === 'field'
                  ? t('timeline.whoNotRecorded')
                  : e.kind === 'message' && e.automated
                    ? t('conversation.system')
                    : (who(e.who) ?? (e.kind === 'status' ? t('conversation.system') : t('timeline.whoNotRecorded')))}
              </span>
              <time className="mono muted small" dateTime={e.at}>
                {formatDateTime(lang, e.at)}
              </time>
            </div>
            {e.kind === 'status' &&
              e.notes.map((m) => (
                <div key={m.id} className="history-note" data-testid="history-note">
                  <strong>{s(m.subject)}</strong>
                  {s(m.body) && <span> — {s(m.body)}</span>}
                </div>
              ))}
            {e.kind === 'message' && (
              <div className="tl-body">
                {e.subject && <div className="msg-subject">{e.subject}</div>}
                {e.body && <p>{e.body}</p>}
              </div>
            )}
            {e.kind === 'field' && <div className="tl-body mono small">{e.value || '—'}</div>}
            {e.kind === 'local' && (
              <div className="tl-body small">
                <span className="was">{show(e.field, e.before)}</span> → <span className="now">{show(e.field, e.after)}</span> <span className="muted">{t('timeline.notPushed')}</span>
              </div>
            )}
          </li>
        ))}
        {!events.length && <li className="muted">{t('timeline.empty')}</li>}
      </ol>
      <p className="muted small tl-note">{t('timeline.recorded')}</p>
      <Composer incident={incident} onSent={onChanged} />
      <Notes key={`${s(incident.internal_note)}|${s(incident.client_note)}`} incident={incident} onSaved={onChanged} />
    </div>
  );
}
