// Asking for the API key once per tab (browser mode).
import { useState, type FormEvent } from 'react';
import { useI18n } from './i18n';
import { useSession } from './state/session';

export function SignIn() {
  const { t } = useI18n();
  const signIn = useSession((s) => s.signIn);
  const error = useSession((s) => s.error);
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!key.trim()) return;
    setBusy(true);
    await signIn(key.trim());
    setBusy(false);
  };
  return (
    <form className="signin" onSubmit={(e) => void submit(e)} aria-label={t('signin.label')}>
      <h2>{t('signin.title')}</h2>
      <p className="muted">{t('signin.help')}</p>
      <label className="field">
        <span>{t('signin.key')}</span>
        <input type="password" autoFocus autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} aria-label={t('signin.key')} />
      </label>
      <button type="submit" className="primary" disabled={busy || !key.trim()}>
        {t('signin.open')}
      </button>
      {error && (
        <p role="alert" className="error">
          {error.status === 401 ? t('signin.refused', { status: error.status }) : t('signin.failed', { status: error.status, message: error.message })}
        </p>
      )}
    </form>
  );
}
