// An address the console does not know (a mistyped hash, an unknown resource): said plainly,
// with the way back.
import { useI18n } from '../i18n';

export function NotFound({ path }: { path: string }) {
  const { t } = useI18n();
  return (
    <div className="not-found" role="main" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{t('notFound.title')}</h1>
      <p>
        {t('notFound.text')} <code className="mono">{path}</code>
      </p>
      <p className="not-found-links">
        <a className="button primary" href="#/incidents">
          {t('notFound.incidents')}
        </a>
        <a className="button" href="#/r">
          {t('notFound.resources')}
        </a>
        <button type="button" className="link" onClick={() => history.back()}>
          {t('notFound.back')}
        </button>
      </p>
    </div>
  );
}
