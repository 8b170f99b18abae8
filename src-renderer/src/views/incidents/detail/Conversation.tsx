// Writing on an incident: a message written here, and the two notes: the internal one stays with
// the provider, the client note is what the customer sees (the timeline shows them with the rest).
import { useState, type FormEvent } from 'react';
import type { Rec } from '../../../api/radar';
import { createRecord, updateRecord } from '../../../api/radar';
import { failureText } from '../../../data/source';
import { useI18n } from '../../../i18n';
import { targetOf } from '../../../state/instances';
import { useSession } from '../../../state/session';

const s = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

export function Composer({ incident, onSent }: { incident: Rec & { _instance: string }; onSent(): void }) {
  const { t } = useI18n();
  const api = useSession((st) => st.api);
  const me = useSession((st) => st.me);
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (!api || !body.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await createRecord(api, targetOf(incident._instance), 'messages', {
        subject: subject.trim() || t('conversation.defaultSubject', { n: s(incident.display_id) }),
        body: body.trim(),
        service_asset_finding_id: incident.id,
        service_asset_id: incident.service_asset_id ?? null,
        finding_id: incident.finding_id ?? null,
        automated: false,
        sender_id: me?.id ?? null,
      });
      setSubject('');
      setBody('');
      onSent();
    } catch (e2) {
      setError(failureText(e2));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="composer" onSubmit={(e) => void send(e)} aria-label={t('conversation.write')}>
      <input value={subject} onChange={(e) => setSubject(e.target.value)} placeholder={t('conversation.subject')} aria-label={t('conversation.subject')} />
      <textarea
        rows={3}
        value={body}
        onChange={(e) => setBody(e.target.value)}
        placeholder={t('conversation.body')}
        aria-label={t('conversation.body')}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void send(e);
        }}
      />
      <div className="composer-foot">
        <span className="muted small">{t('conversation.asWho', { name: me?.name ?? '—' })}</span>
        <button type="submit" className="primary" disabled={busy || !body.trim()}>
          {t('conversation.send')}
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

export function Notes({ incident, onSaved }: { incident: Rec & { _instance: string }; onSaved(): void }) {
  const { t } = useI18n();
  return (
    <div className="notes">
      <NoteField incident={incident} field="internal_note" label={t('conversation.internal')} hint={t('conversation.internalHint')} onSaved={onSaved} />
      <NoteField incident={incident} field="client_note" label={t('conversation.client')} hint={t('conversation.clientHint')} onSaved={onSaved} />
    </div>
  );
}

function NoteField({ incident, field, label, hint, onSaved }: { incident: Rec & { _instance: string }; field: 'internal_note' | 'client_note'; label: string; hint: string; onSaved(): void }) {
  const { t } = useI18n();
  const api = useSession((st) => st.api);
  const saved = s(incident[field]);
  const [text, setText] = useState(saved);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    if (!api) return;
    setBusy(true);
    setError(null);
    try {
      await updateRecord(api, targetOf(incident._instance), 'service_asset_findings', { id: incident.id, [field]: text.trim() || null });
      onSaved();
    } catch (e) {
      setError(failureText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className={`note note-${field === 'internal_note' ? 'internal' : 'client'}`}>
      <label className="field">
        <span className="note-label">
          {label} <span className="muted small">· {hint}</span>
        </span>
        <textarea rows={2} value={text} onChange={(e) => setText(e.target.value)} aria-label={label} />
      </label>
      {text !== saved && (
        <div className="note-foot">
          <button type="button" onClick={() => setText(saved)}>
            {t('common.cancel')}
          </button>
          <button type="button" className="primary" disabled={busy} onClick={() => void save()}>
            {t('conversation.saveNote')}
          </button>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
