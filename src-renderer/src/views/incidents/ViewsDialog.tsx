// Saved views of the incident list for the instance shown: save the current one (filters,
// range, sort, columns, grouping), open one, make one the default, delete; and the address of
// the current view to share.
import { useState, type FormEvent } from 'react';
import { runAction } from '../../actions/registry';
import { Dialog } from '../../components/Dialog';
import { useI18n } from '../../i18n';
import { hrefOf, navigate, useRoute } from '../../router';
import { useInstances } from '../../state/instances';
import { useTriage } from '../../state/triage';
import { useUi } from '../../state/ui';
import { useViews } from '../../state/views';

export function ViewsDialog() {
  const { t } = useI18n();
  const route = useRoute();
  const instance = useInstances((s) => s.selected);
  const views = useViews((s) => s.byInstance[instance]) ?? [];
  const [name, setName] = useState('');
  const [asDefault, setAsDefault] = useState(false);
  const params = route.view === 'incidents' ? (route.params ?? '') : '';
  const close = () => useUi.getState().openDialog(null);
  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    useViews.getState().save(instance, name.trim(), params, asDefault);
    setName('');
  };
  const open = (p: string) => {
    close();
    navigate({ view: 'incidents', params: p || undefined });
    useTriage.getState().refresh();
  };
  const share = `${window.location.origin}${window.location.pathname}${hrefOf({ view: 'incidents', params: params || undefined })}`;
  return (
    <Dialog title={t('views.title')} onClose={close} wide>
      <form onSubmit={save} className="views-save">
        <label className="field">
          <span>{t('views.name')}</span>
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder={t('views.namePlaceholder')} autoFocus />
        </label>
        <label className="check">
          <input type="checkbox" checked={asDefault} onChange={(e) => setAsDefault(e.target.checked)} />
          {t('views.asDefault')}
        </label>
        <button type="submit" className="primary" disabled={!name.trim()}>
          {t('views.save')}
        </button>
      </form>
      <div className="field share-field">
        <label htmlFor="share-url">{t('views.share')}</label>
        <div className="share-row">
          <input id="share-url" readOnly value={share} onFocus={(e) => e.target.select()} data-testid="share-url" />
          <button type="button" onClick={() => runAction('view.copyLink')}>
            {t('links.copyShort')}
          </button>
        </div>
        <span className="muted small">{t('links.shareHint')}</span>
      </div>
      <ul className="views-list" aria-label={t('views.saved')}>
        {views.map((v) => (
          <li key={v.name}>
            <button type="button" className="link" onClick={() => open(v.params)}>
              {v.name}
            </button>
            {v.isDefault && <span className="tag">{t('views.default')}</span>}
            <span className="muted small mono">{v.params || t('views.everything')}</span>
            <span className="spacer" />
            <button type="button" className="ghost" onClick={() => useViews.getState().setDefault(instance, v.isDefault ? null : v.name)}>
              {v.isDefault ? t('views.unsetDefault') : t('views.makeDefault')}
            </button>
            <button type="button" className="ghost" onClick={() => useViews.getState().remove(instance, v.name)} aria-label={t('views.delete', { name: v.name })}>
              ×
            </button>
          </li>
        ))}
        {!views.length && <li className="muted">{t('views.none')}</li>}
      </ul>
    </Dialog>
  );
}
