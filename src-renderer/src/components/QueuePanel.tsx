// The changes waiting to be sent, in one place: the header's count (shown while there are any),
// the list of them (each change, its instance, its incidents, why it waits or was not applied;
// Send now, Undo, Retry, Discard), and the mark a waiting incident carries on its row.
import type { TFunction } from 'i18next';
import { useI18n, type Lang } from '../i18n';
import { formatDateTime, formatNumber } from '../i18n/format';
import type { ChangeKind, ChangeValue } from '../state/bulk';
import { useAnswering } from '../state/connection';
import { useInstances } from '../state/instances';
import { displayName } from '../lib/instanceName';
import { groupName, personName, usePeople } from '../state/people';
import { queuedCount, queuedMarks, useQueue, type QueueEntry } from '../state/queue';
import { Dialog } from './Dialog';
import './queue.css';

/** A value of a change in the user's words (a status's name, a risk level, a person's or group's name). */
export function valueText(t: TFunction, lang: Lang, instance: string, kind: ChangeKind, v: ChangeValue): string {
  if (v === null || v === undefined) return kind === 'owner' ? t('assign.nobody') : '—';
  switch (kind) {
    case 'status':
      return t(`status.${v}`, { defaultValue: String(v) });
    case 'risk':
      return formatNumber(lang, Number(v), 1);
    case 'owner':
      return personName(instance, String(v), true) ?? String(v);
    case 'group':
      return groupName(instance, String(v)) ?? String(v);
  }
}

/** The mark of an incident with a change waiting (or not applied) on its row. */
export function QueuedMark({ rowKey }: { rowKey: string }) {
  const state = useQueue((s) => queuedMarks(s.entries).get(rowKey));
  return state ? <QueuedIcon state={state} /> : null;
}

/** The mark itself (a row without one, nearly every row of a list, asks no translation). */
function QueuedIcon({ state }: { state: 'waiting' | 'failed' }) {
  const { t } = useI18n();
  const label = state === 'waiting' ? t('queue.markWaiting') : t('queue.markFailed');
  return <span className={`queued-mark is-${state}`} role="img" aria-label={label} title={label} data-testid="queued-mark" data-state={state} />;
}

/** The header's count of waiting changes (nothing when there are none); opens the list. */
export function QueueButton() {
  const { t, lang } = useI18n();
  const entries = useQueue((s) => s.entries);
  if (!entries.length) return null;
  const waiting = entries.filter((e) => e.state === 'waiting').reduce((n, e) => n + queuedCount(e), 0);
  const failed = entries.filter((e) => e.state === 'failed').reduce((n, e) => n + queuedCount(e), 0);
  const parts = [
    waiting ? t('queue.waitingCount', { count: waiting, n: formatNumber(lang, waiting) }) : null,
    failed ? t('queue.failedCount', { count: failed, n: formatNumber(lang, failed) }) : null,
  ].filter(Boolean);
  return (
    <button type="button" className={`queue-button${failed ? ' has-failed' : ''}`} data-testid="queue-button" onClick={() => useQueue.getState().setOpen(true)} title={t('queue.title')}>
      <span className="queue-icon" aria-hidden="true" />
      {parts.join(' · ')}
    </button>
  );
}

function Entry({ e }: { e: QueueEntry }) {
  const { t, lang } = useI18n();
  usePeople((s) => s.version);
  const sending = useQueue((s) => s.sending === e.id);
  const answers = useAnswering(e.instance);
  const n = queuedCount(e);
  const what = t(`held.${e.kind}`, { count: n, n: formatNumber(lang, n), value: e.label });
  const shown = e.items.slice(0, 6);
  const conflict = e.items.some((i) => i.conflict);
  const inst = useInstances((st) => st.list.find((i) => (e.instance === 'main' ? i.kind === 'main' : i.id === e.instance)));
  const instanceName = inst ? displayName(inst, t) : e.instanceName || e.instance;
  return (
    <li className={`queue-entry is-${e.state}`} data-testid="queue-entry" data-state={e.state}>
      <div className="queue-head">
        <strong>{what}</strong>
        <span className="tag">{instanceName}</span>
        <span className="muted small">{formatDateTime(lang, new Date(e.madeAt).toISOString())}</span>
      </div>
      <p className={`queue-state small${e.state === 'failed' ? ' error' : ' muted'}`}>
        {e.state === 'failed'
          ? conflict
            ? t('queue.conflict')
            : t('queue.refused')
          : sending
            ? t('queue.sending')
            : answers === false
              ? t('queue.waitingFor', { instance: instanceName })
              : t('queue.waitingNext')}
        {e.unsaved && ` ${t('queue.unsaved')}`}
      </p>
      {e.note && (
        <p className="small queue-note">
          <strong>{e.note.subject}</strong>
          {e.note.body && ` — ${e.note.body}`}
        </p>
      )}
      {e.scope && <p className="small">{t('queue.scope', { count: n, n: formatNumber(lang, n) })}</p>}
      {shown.length > 0 && (
        <ul className="queue-items">
          {shown.map((it) => (
            <li key={it.id}>
              <span className="mono">#{it.display_id ?? '—'}</span> {it.title ?? ''}
              {it.conflict && <span className="error small"> — {t('queue.foundNow', { value: valueText(t, lang, e.instance, e.kind, it.found ?? null) })}</span>}
              {it.reason && <span className="error small"> — {it.reason}</span>}
            </li>
          ))}
          {e.items.length > shown.length && <li className="muted">{t('queue.more', { n: formatNumber(lang, e.items.length - shown.length) })}</li>}
        </ul>
      )}
      <div className="queue-actions">
        {e.state === 'waiting' ? (
          <>
            <button type="button" disabled={sending || answers === false} onClick={() => void useQueue.getState().flush(e.instance)}>
              {t('queue.sendNow')}
            </button>
            <button type="button" className="link" disabled={sending} onClick={() => useQueue.getState().remove(e.id)}>
              {t('queue.undo')}
            </button>
          </>
        ) : (
          <>
            <button type="button" className="primary" onClick={() => useQueue.getState().retry(e.id)}>
              {conflict ? t('queue.overwrite') : t('queue.retry')}
            </button>
            <button type="button" className="link" onClick={() => useQueue.getState().remove(e.id)}>
              {t('queue.discard')}
            </button>
          </>
        )}
      </div>
    </li>
  );
}

/** Every change waiting to be sent or not applied, per instance. */
export function QueueDialog() {
  const { t } = useI18n();
  const open = useQueue((s) => s.open);
  const entries = useQueue((s) => s.entries);
  if (!open) return null;
  const close = () => useQueue.getState().setOpen(false);
  return (
    <Dialog
      title={t('queue.title')}
      onClose={close}
      wide
      className="queue-dialog"
      footer={
        <button type="button" onClick={close}>
          {t('common.close')}
        </button>
      }
    >
      <p className="muted small">{t('queue.intro')}</p>
      {entries.length ? (
        <ul className="queue-list" aria-label={t('queue.title')}>
          {[...entries].reverse().map((e) => (
            <Entry key={e.id} e={e} />
          ))}
        </ul>
      ) : (
        <p className="muted">{t('queue.empty')}</p>
      )}
    </Dialog>
  );
}
