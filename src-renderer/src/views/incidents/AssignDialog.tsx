// Assigning incidents to a person (the local analyst first) or to a responsible group, or
// taking the owner away; held and sent like every change.
import { useMemo, useState, type FormEvent } from 'react';
import { Dialog } from '../../components/Dialog';
import { useI18n } from '../../i18n';
import { collator, formatNumber } from '../../i18n/format';
import { targetSize, useChanges, type ChangeTarget } from '../../state/changes';
import { peopleOf, usePeople } from '../../state/people';
import { useSession } from '../../state/session';
import { useUi } from '../../state/ui';

export function AssignDialog({ target: changeTarget }: { target: ChangeTarget }) {
  const { t, lang } = useI18n();
  const close = () => useUi.getState().openDialog(null);
  const refs = changeTarget;
  const size = targetSize(changeTarget);
  const instance = 'refs' in changeTarget ? (changeTarget.refs[0]?.instance.id ?? 'main') : changeTarget.scope.view === 'all' ? 'main' : changeTarget.scope.view;
  usePeople((s) => s.version);
  const me = useSession((s) => s.me);
  const people = peopleOf(instance);
  const groups = useMemo(() => [...(usePeople.getState().dirs[instance]?.groups ?? [])].sort((a, b) => collator(lang).compare(a.name, b.name)), [instance, lang]);
  const [target, setTarget] = useState<string>(me ? `user:${me.id}` : '');
  const [text, setText] = useState('');
  const match = (s: string) => s.toLowerCase().includes(text.trim().toLowerCase());
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!target) return;
    close();
    const [kind, id = ''] = target.split(':');
    if (kind === 'user') {
      const p = people.find((x) => x.id === id);
      useChanges.getState().apply('owner', id, refs, { label: p?.name ?? id });
    } else if (kind === 'group') {
      useChanges.getState().apply('group', id, refs, { label: groups.find((g) => g.id === id)?.name ?? id });
    } else {
      useChanges.getState().apply('owner', null, refs, { label: t('assign.nobody') });
    }
  };
  const n = formatNumber(lang, size);
  return (
    <Dialog title={t('assign.title', { count: size, n })} onClose={close}>
      <form onSubmit={submit} className="change-form assign-form">
        <input type="search" autoFocus placeholder={t('assign.find')} aria-label={t('assign.find')} value={text} onChange={(e) => setText(e.target.value)} />
        <fieldset className="assign-list">
          <legend>{t('assign.people')}</legend>
          {people.filter((p) => match(`${p.name} ${p.login ?? ''} ${p.role ?? ''}`)).map((p) => (
            <label key={p.id} className={`choice${target === `user:${p.id}` ? ' is-checked' : ''}`}>
              <input type="radio" name="assign" checked={target === `user:${p.id}`} onChange={() => setTarget(`user:${p.id}`)} />
              <span>{p.name}</span>
              {p.id === me?.id && <span className="tag">{t('assign.me')}</span>}
              {p.role && <span className="muted small">{p.role}</span>}
            </label>
          ))}
          <label className={`choice${target === 'none' ? ' is-checked' : ''}`}>
            <input type="radio" name="assign" checked={target === 'none'} onChange={() => setTarget('none')} />
            <span className="muted">{t('assign.nobody')}</span>
          </label>
        </fieldset>
        <fieldset className="assign-list">
          <legend>{t('assign.groups')}</legend>
          {groups.filter((g) => match(g.name)).map((g) => (
            <label key={g.id} className={`choice${target === `group:${g.id}` ? ' is-checked' : ''}`}>
              <input type="radio" name="assign" checked={target === `group:${g.id}`} onChange={() => setTarget(`group:${g.id}`)} />
              <span>{g.name}</span>
              {me && g.user_ids.includes(me.id) && <span className="tag">{t('assign.myGroup')}</span>}
            </label>
          ))}
          {!groups.length && <p className="muted">{t('assign.noGroups')}</p>}
        </fieldset>
        <div className="dialog-actions">
          <span className="muted small dialog-keys">{t('change.submitKeys')}</span>
          <button type="button" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="primary" disabled={!target}>
            {t('assign.apply', { count: size, n })}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
