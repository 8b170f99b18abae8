// Picking records of a resource by typing part of their label (v2 search, virtual_search).
import { useEffect, useState } from 'react';
import { getResource } from '../../../src-shared/resources/index';
import { emptySearch } from '../../../src-shared/schemas/search';
import { search, type Rec } from '../api/radar';
import { isAbort } from '../api/client';
import { rememberLabel } from '../data/lookup';
import { useI18n } from '../i18n';
import { sortByText } from '../i18n/format';
import { targetOf } from '../state/instances';
import { useSession } from '../state/session';
import { RecordLabel } from './Label';
import { Popover } from './Popover';

export function Picker(props: { resource: string; instance: string | null; label: string; chosen: string[]; onChange(ids: string[]): void }) {
  const { t } = useI18n();
  const count = props.chosen.length;
  return (
    <Popover
      className="picker"
      buttonClass={`filter-button${count ? ' is-active' : ''}`}
      ariaLabel={props.label}
      label={
        <>
          {props.label}
          {count > 0 && <span className="count-pill">{count}</span>}
          <span className="caret" aria-hidden="true">
            ▾
          </span>
        </>
      }
    >
      {() => (props.instance ? <PickerBody {...props} instance={props.instance} /> : <p className="muted pad">{t('filters.pickerAll')}</p>)}
    </Popover>
  );
}

function PickerBody(props: { resource: string; instance: string; label: string; chosen: string[]; onChange(ids: string[]): void }) {
  const { t, lang } = useI18n();
  const api = useSession((s) => s.api);
  const [text, setText] = useState('');
  const [items, setItems] = useState<Rec[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const r = getResource(props.resource);
  useEffect(() => {
    if (!api) return;
    const ctl = new AbortController();
    const timer = setTimeout(() => {
      search(
        api,
        targetOf(props.instance),
        props.resource,
        { ...emptySearch(30), include_fields: ['id', r.label], virtual_search: { value: text.trim(), strict: false }, ordering: [{ field: r.label, direction: 'asc' }] },
        ctl.signal,
      ).then(
        (page) => {
          setItems(sortByText(lang, page.items, (it) => String(it[r.label] ?? '')));
          setError(null);
        },
        (e: unknown) => {
          if (!isAbort(e)) setError(e instanceof Error ? e.message : String(e));
        },
      );
    }, 150);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [api, text, props.instance, props.resource, r.label, lang]);
  const chosen = new Set(props.chosen);
  const toggle = (it: Rec) => {
    rememberLabel(props.instance, props.resource, it.id, String(it[r.label] ?? it.id));
    props.onChange(chosen.has(it.id) ? props.chosen.filter((c) => c !== it.id) : [...props.chosen, it.id]);
  };
  return (
    <div className="picker-body">
      <input type="search" autoFocus placeholder={t('filters.find')} aria-label={t('filters.findIn', { what: props.label })} value={text} onChange={(e) => setText(e.target.value)} />
      {props.chosen.length > 0 && (
        <div className="picker-chosen">
          {props.chosen.map((c) => (
            <button type="button" key={c} className="chip is-on" onClick={() => props.onChange(props.chosen.filter((x) => x !== c))} title={t('filters.remove')}>
              <RecordLabel instance={props.instance} resource={props.resource} id={c} /> ×
            </button>
          ))}
        </div>
      )}
      <ul className="picker-list" role="listbox" aria-label={props.label} aria-multiselectable="true">
        {error && <li className="error">{error}</li>}
        {items === null && !error && <li className="muted">{t('states.loading')}</li>}
        {items?.length === 0 && <li className="muted">{t('states.nothingFound')}</li>}
        {items?.map((it) => (
          <li key={it.id} role="option" aria-selected={chosen.has(it.id)}>
            <label>
              <input type="checkbox" checked={chosen.has(it.id)} onChange={() => toggle(it)} />
              <span>{String(it[r.label] ?? it.id)}</span>
            </label>
          </li>
        ))}
      </ul>
    </div>
  );
}
