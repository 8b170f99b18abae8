// A conflict, side by side: the value here (mine), the platform's (theirs) and the one both
// started from (the original, as copied). Keep mine (pushed next), take theirs (written here,
// the record read again from the platform), or edit a value of one's own (pushed).
import { useState } from 'react';
import { INCIDENT_STATUSES } from '../../../../src-shared/resources/fields';
import type { OutboxEntry } from '../../../../src-shared/schemas/sync';
import { resolveEntries } from '../../api/sync';
import { Dialog } from '../../components/Dialog';
import { useI18n } from '../../i18n';
import { formatDateTime } from '../../i18n/format';
import { checkAuth, useSession } from '../../state/session';
import { useUi } from '../../state/ui';
import { showValue } from './values';

/** The edited text as the field's value: numbers for numbers, null for nothing. */
function parseEdit(text: string, like: unknown): unknown {
  if (typeof like === 'number') return text.trim() === '' ? null : Number(text);
  return text === '' ? null : text;
}

export function ConflictResolver({ instance, entry, onClose }: { instance: string; entry: OutboxEntry; onClose(done: boolean): void }) {
  const { t, lang } = useI18n();
  const api = useSession((s) => s.api);
  const notify = useUi((s) => s.notify);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(entry.after === null || entry.after === undefined ? '' : typeof entry.after === 'object' ? JSON.stringify(entry.after) : String(entry.after));
  const field = entry.field;
  const fieldName = field ? t(`fields.${field}`, { defaultValue: field }) : t(`sync.op.${entry.op}`);
  const show = (v: unknown) => (entry.op === 'update' ? showValue(field, v, t) : v ? t('sync.recordThere') : '—');

  const take = async (take: 'mine' | 'theirs' | 'edit') => {
    if (!api) return;
    setBusy(true);
    try {
      const value = take === 'edit' ? parseEdit(text, entry.after ?? entry.theirs) : undefined;
      const res = await resolveEntries(api, instance, { entries: [entry.seq], take, ...(take === 'edit' ? { value } : {}) });
      if (res.note) notify('info', res.note);
      onClose(true);
    } catch (e) {
      checkAuth(e);
      notify('error', e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };

  const columns: { key: string; label: string; value: unknown; note?: string }[] = [
    { key: 'mine', label: t('sync.mine'), value: entry.op === 'delete' ? null : entry.after, note: formatDateTime(lang, entry.changed_at) },
    { key: 'theirs', label: t('sync.theirs'), value: entry.theirs, note: entry.theirs_at ? formatDateTime(lang, entry.theirs_at) : undefined },
    { key: 'original', label: t('sync.original'), value: entry.before },
  ];

  return (
    <Dialog
      title={t('sync.resolveTitle', { field: fieldName, record: entry.label ?? entry.record_id })}
      onClose={() => onClose(false)}
      wide
      className="conflict-resolver"
      footer={
        <>
          <button type="button" onClick={() => onClose(false)} disabled={busy}>
            {t('common.cancel')}
          </button>
          <span className="spacer" />
          {entry.op === 'update' && !editing && (
            <button type="button" onClick={() => setEditing(true)} disabled={busy}>
              {t('sync.edit')}
            </button>
          )}
          {editing && (
            <button type="button" onClick={() => void take('edit')} disabled={busy}>
              {t('sync.saveEdit')}
            </button>
          )}
          <button type="button" onClick={() => void take('theirs')} disabled={busy}>
            {t('sync.takeTheirs')}
          </button>
          <button type="button" className="primary" onClick={() => void take('mine')} disabled={busy}>
            {t('sync.keepMine')}
          </button>
        </>
      }
    >
      <p className="muted">{t('sync.resolveHelp')}</p>
      <div className="conflict-sides" data-testid="conflict-sides">
        {columns.map((c) => (
          <section key={c.key} className={`conflict-side is-${c.key}`} aria-label={c.label}>
            <h3>{c.label}</h3>
            <p className="conflict-value" data-side={c.key}>
              {c.key === 'mine' && entry.op === 'delete' ? t('sync.deletedHere') : show(c.value)}
            </p>
            {c.note && <p className="muted small">{c.note}</p>}
          </section>
        ))}
      </div>
      {editing && (
        <label className="conflict-edit">
          {t('sync.editLabel', { field: fieldName })}
          {field === 'status' ? (
            <select value={text} onChange={(e) => setText(e.target.value)}>
              {INCIDENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(`status.${s}`)}
                </option>
              ))}
            </select>
          ) : (
            <input type={typeof entry.after === 'number' ? 'number' : 'text'} value={text} onChange={(e) => setText(e.target.value)} />
          )}
        </label>
      )}
    </Dialog>
  );
}
