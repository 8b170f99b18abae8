// Managing instances in the console: add a local database (a file) or a remote platform (its
// address and key), rename, test, remove. The list follows the server, so a change made with the
// CLI shows here too.
import { useState, type FormEvent } from 'react';
import type { InstanceView } from '../../../src-shared/schemas/instances';
import { failureText } from '../data/source';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { useInstances } from '../state/instances';
import { useUi } from '../state/ui';
import { HealthDot } from './Badges';
import { Dialog } from './Dialog';
import { displayName } from './InstanceSwitcher';

function Row({ i }: { i: InstanceView }) {
  const { t, lang } = useI18n();
  const health = useInstances((s) => s.health[i.id]);
  const [name, setName] = useState(i.kind === 'main' ? displayName(i, t) : i.name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(failureText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="instance-row" data-testid="instance-row">
      <HealthDot ok={health?.ok} title={health ? (health.ok ? t('instances.ok', { ms: formatNumber(lang, health.time_ms, 0) }) : t('instances.down', { status: health.status, error: health.error })) : t('instances.unknown')} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (i.kind !== 'main' && name.trim() && name.trim() !== i.name) void act(() => useInstances.getState().update(i.id, { name: name.trim() }));
        }}
      >
        <input aria-label={t('instances.nameOf', { name: displayName(i, t) })} value={name} onChange={(e) => setName(e.target.value)} disabled={i.kind === 'main'} />
      </form>
      <span className="tag">{t(`instances.kind.${i.kind}`)}</span>
      <span className="muted small mono instance-where">{i.kind === 'remote' ? i.remote_url : i.kind === 'local' ? i.db_file : ''}</span>
      <span className="spacer" />
      {name.trim() !== i.name && i.kind !== 'main' && (
        <button type="button" disabled={busy || !name.trim()} onClick={() => void act(() => useInstances.getState().update(i.id, { name: name.trim() }))}>
          {t('instances.rename')}
        </button>
      )}
      <button type="button" disabled={busy} onClick={() => void act(() => useInstances.getState().check(i.id))}>
        {t('instances.test')}
      </button>
      {i.kind !== 'main' &&
        (confirm ? (
          <button type="button" className="danger" disabled={busy} onClick={() => void act(() => useInstances.getState().remove(i.id))}>
            {t('instances.confirmRemove')}
          </button>
        ) : (
          <button type="button" disabled={busy} onClick={() => setConfirm(true)}>
            {t('instances.remove')}
          </button>
        ))}
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </li>
  );
}

function AddForm() {
  const { t } = useI18n();
  const [kind, setKind] = useState<'local' | 'remote'>('remote');
  const [name, setName] = useState('');
  const [file, setFile] = useState('');
  const [url, setUrl] = useState('');
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await useInstances.getState().add(kind === 'local' ? { kind, name: name.trim(), db_file: file.trim() } : { kind, name: name.trim(), url: url.trim(), api_key: key });
      setName('');
      setFile('');
      setUrl('');
      setKey('');
    } catch (e2) {
      setError(failureText(e2));
    } finally {
      setBusy(false);
    }
  };
  const ok = name.trim() && (kind === 'local' ? file.trim() : url.trim() && key);
  return (
    <form className="instance-add" onSubmit={(e) => void submit(e)} aria-label={t('instances.add')}>
      <fieldset className="segmented">
        <legend className="sr-only">{t('instances.addKind')}</legend>
        <label>
          <input type="radio" name="kind" checked={kind === 'remote'} onChange={() => setKind('remote')} /> {t('instances.kind.remote')}
        </label>
        <label>
          <input type="radio" name="kind" checked={kind === 'local'} onChange={() => setKind('local')} /> {t('instances.kind.local')}
        </label>
      </fieldset>
      <label className="field">
        <span>{t('instances.name')}</span>
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      {kind === 'local' ? (
        <label className="field">
          <span>{t('instances.file')}</span>
          <input value={file} onChange={(e) => setFile(e.target.value)} placeholder="branch.sqlite" />
        </label>
      ) : (
        <>
          <label className="field">
            <span>{t('instances.url')}</span>
            <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://radar.example.ru:9000" />
          </label>
          <label className="field">
            <span>{t('instances.key')}</span>
            <input type="password" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" />
          </label>
        </>
      )}
      <button type="submit" className="primary" disabled={!ok || busy}>
        {t('instances.addButton')}
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

export function InstancesDialog() {
  const { t } = useI18n();
  const list = useInstances((s) => s.list);
  const close = () => useUi.getState().openDialog(null);
  return (
    <Dialog title={t('instances.manageTitle')} onClose={close} wide>
      <ul className="instances-list">
        {list.map((i) => (
          <Row key={`${i.id}|${i.name}`} i={i} />
        ))}
      </ul>
      <h3>{t('instances.add')}</h3>
      <AddForm />
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={close}>
          {t('common.done')}
        </button>
      </div>
    </Dialog>
  );
}
