// The v2 search request builder: fields, filters of every type with negation, ordering,
// relations, include/exclude fields, virtual search. It edits the request the server parses,
// checks it with the shared schema and the resource declaration as you type, shows it as JSON,
// URL or curl, runs it, and saves it per instance.
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { fieldOf, fieldsOf, filtersForKind, findResource, getResource, relationsOf, RESOURCES, type FieldInfo, type FilterType, type ResourceDef } from '../../../../src-shared/resources/index';
import { FILTER_TYPES } from '../../../../src-shared/resources/types';
import { searchRequestSchema, type SearchFilter, type SearchRequest } from '../../../../src-shared/schemas/search';
import { search } from '../../api/radar';
import { visibleColumnIds } from '../../components/DataTable';
import { ExportMenu } from '../../components/ExportMenu';
import type { ExportSource } from '../../data/exports';
import { useI18n } from '../../i18n';
import { sortByText } from '../../i18n/format';
import { useInstances } from '../../state/instances';
import { useUi } from '../../state/ui';
import { fieldLabel, resourceColumns } from '../resources/fields';
import { IssueList, RequestPanel, Results, SavedPanel, TextEditor, useBuilderRun, useEndpoint } from './common';
import { findRelation, jsonIssue as notJsonIssue, validateSearch, zodIssues, type Issue } from './validate';

export interface DraftFilter {
  field: string;
  type: FilterType;
  negation: boolean;
  text: string;
  from: string;
  to: string;
}

export interface Draft {
  resource: string;
  include: string[];
  exclude: string[];
  filters: DraftFilter[];
  ordering: { field: string; direction: 'asc' | 'desc' }[];
  relations: string[];
  idRelations: string[];
  vs: { value: string; strict: boolean };
  children: boolean;
  parents: boolean;
  limit: string;
  offset: string;
}

const DRAFT_KEY = 'radar-console.v2draft';

/**
 * The columns an export of this request has, as the server lists them: the selected fields
 * (include_fields, less exclude_fields), the loaded relations, and _relations when asked for.
 */
export function requestColumns(r: ResourceDef, req: SearchRequest, label: (name: string) => string): { id: string; label: string }[] {
  const all = fieldsOf(r).filter((f) => !f.def?.secret);
  const inc = req.include_fields.length ? all.filter((f) => req.include_fields.includes(f.name)) : all;
  const names = [...inc.filter((f) => !req.exclude_fields.includes(f.name)).map((f) => f.name), ...req.relations, ...(req._relations?.length ? ['_relations'] : [])];
  return [...new Set(names)].map((id) => ({ id, label: label(id) }));
}

export function newDraft(resource = 'service_asset_findings'): Draft {
  return {
    resource,
    include: [],
    exclude: [],
    filters: [],
    ordering: fieldOf(getResource(resource), 'created_at') ? [{ field: 'created_at', direction: 'desc' }] : [],
    relations: [],
    idRelations: [],
    vs: { value: '', strict: false },
    children: false,
    parents: false,
    limit: '50',
    offset: '0',
  };
}

const splitList = (s: string): string[] =>
  s
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean);

/** Text typed for a field, as the JSON value the server expects for its kind. */
export function typed(f: FieldInfo | undefined, s: string): unknown {
  const v = s.trim();
  if (!f) return v;
  if ((f.kind === 'int' || f.kind === 'number') && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (f.kind === 'bool' && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}

const intOrText = (s: string): unknown => (/^\d+$/.test(s.trim()) ? Number(s.trim()) : s);

export function compile(d: Draft): unknown {
  const r = findResource(d.resource);
  const filters = d.filters.map((f) => {
    const info = r ? fieldOf(r, f.field) : undefined;
    const out: Record<string, unknown> = { field: f.field, filter_type: f.type };
    switch (f.type) {
      case 'equal':
        out.value = typed(info, f.text);
        break;
      case 'substr':
        out.value = f.text;
        break;
      case 'intersection':
        out.value = splitList(f.text).map((x) => typed(info, x));
        break;
      case 'range':
        out.value = [f.from.trim() ? typed(info, f.from) : null, f.to.trim() ? typed(info, f.to) : null];
        break;
      case 'related':
        out.value = splitList(f.text);
        break;
      case 'exists':
        break;
    }
    out.negation = f.negation;
    return out;
  });
  return {
    include_fields: d.include,
    exclude_fields: d.exclude,
    filters,
    ordering: d.ordering,
    virtual_search: d.vs,
    extension_params: { chidlrens_all: d.children, parents_all: d.parents },
    relations: d.relations,
    ...(d.idRelations.length ? { _relations: d.idRelations } : {}),
    limit: intOrText(d.limit),
    offset: intOrText(d.offset),
  };
}

const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** A parsed request back into the form (for JSON typed by hand and saved searches). */
export function decompile(resource: string, req: SearchRequest): Draft {
  return {
    resource,
    include: req.include_fields,
    exclude: req.exclude_fields,
    filters: req.filters.map((f: SearchFilter) => {
      const v = f.value;
      const range = f.filter_type === 'range' && Array.isArray(v);
      return {
        field: f.field,
        type: f.filter_type,
        negation: !!f.negation,
        text: range ? '' : Array.isArray(v) ? v.map(text).join(', ') : text(v),
        from: range ? text((v as unknown[])[0]) : '',
        to: range ? text((v as unknown[])[1]) : '',
      };
    }),
    ordering: req.ordering,
    relations: req.relations,
    idRelations: req._relations ?? [],
    vs: req.virtual_search,
    children: !!(req.extension_params.chidlrens_all || req.extension_params.children_all),
    parents: req.extension_params.parents_all,
    limit: String(req.limit),
    offset: String(req.offset),
  };
}

function loadDraft(): Draft {
  try {
    const d = JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? 'null') as Draft | null;
    if (d && findResource(d.resource)) return { ...newDraft(d.resource), ...d };
  } catch {
    // a broken draft starts afresh
  }
  return newDraft();
}

function defaultFilter(r: ResourceDef, field: string): DraftFilter {
  const info = fieldOf(r, field);
  const types = info ? (info.def?.secret ? ['exists' as const] : filtersForKind(info.kind, info.jsonShape)) : (['related'] as FilterType[]);
  return { field, type: types[0]!, negation: false, text: '', from: '', to: '', ...(info?.def?.enum ? { text: info.def.enum[0]! } : {}) };
}

function FilterRow({ r, f, index, onChange, onRemove, issues }: { r: ResourceDef; f: DraftFilter; index: number; onChange(f: DraftFilter): void; onRemove(): void; issues: readonly Issue[] }) {
  const { t } = useI18n();
  // The parts of the row an issue names are marked (aria-invalid and the row's colour).
  const at = (part: string) => issues.some((i) => i.path === `filters.${index}.${part}` || (part === 'value' && i.path === `filters.${index}`));
  const info = fieldOf(r, f.field);
  const rel = !info ? findRelation(r, f.field) : undefined;
  const types: FilterType[] = info ? (info.def?.secret ? ['exists'] : filtersForKind(info.kind, info.jsonShape)) : rel ? ['related'] : [...FILTER_TYPES];
  const n = index + 1;
  const fieldList = fieldsOf(r);
  const rels = relationsOf(r);
  const enumValues = info?.def?.enum;
  // A field the resource does not have (typed by hand in the JSON) is shown as it is, marked.
  const unknown = !info && !rel;
  return (
    <div className={`filter-row${unknown || issues.length ? ' has-issue' : ''}`} role="group" aria-label={t('builder.filterN', { n })}>
      <select aria-label={t('builder.filterField', { n })} aria-invalid={unknown || at('field')} value={f.field} onChange={(e) => onChange(defaultFilter(r, e.target.value))}>
        {unknown && (
          <optgroup label={t('builder.unknownFieldMark')}>
            <option value={f.field}>{t('builder.unknownOption', { name: f.field })}</option>
          </optgroup>
        )}
        <optgroup label={t('builder.fields')}>
          {fieldList.map((x) => (
            <option key={x.name} value={x.name}>
              {x.name}
            </option>
          ))}
        </optgroup>
        <optgroup label={t('builder.relations')}>
          {rels.map(([name]) => (
            <option key={`rel:${name}`} value={name}>
              {name}
            </option>
          ))}
        </optgroup>
      </select>
      {unknown && (
        <span className="unknown-mark" data-testid={`unknown-field-${n}`}>
          {t('builder.unknownFieldMark')}
        </span>
      )}
      <select aria-label={t('builder.filterType', { n })} aria-invalid={at('filter_type')} value={f.type} onChange={(e) => onChange({ ...f, type: e.target.value as FilterType })}>
        {(types.includes(f.type) ? types : [f.type, ...types]).map((x) => (
          <option key={x} value={x}>
            {t(`builder.types.${x}`)}
          </option>
        ))}
      </select>
      <label className="inline" title={t('builder.negationHint')}>
        <input type="checkbox" checked={f.negation} onChange={(e) => onChange({ ...f, negation: e.target.checked })} aria-label={t('builder.negation', { n })} />
        {t('builder.not')}
      </label>
      {f.type === 'range' ? (
        <>
          <input type="text" aria-label={t('builder.from', { n })} aria-invalid={at('value')} placeholder={t('builder.fromPh')} value={f.from} onChange={(e) => onChange({ ...f, from: e.target.value })} />
          <input type="text" aria-label={t('builder.to', { n })} aria-invalid={at('value')} placeholder={t('builder.toPh')} value={f.to} onChange={(e) => onChange({ ...f, to: e.target.value })} />
        </>
      ) : f.type === 'exists' ? (
        <span className="muted hint">{t('builder.existsHint')}</span>
      ) : enumValues && f.type === 'equal' ? (
        <select aria-label={t('builder.value', { n })} aria-invalid={!enumValues.includes(f.text) || at('value')} value={f.text} onChange={(e) => onChange({ ...f, text: e.target.value })}>
          {!enumValues.includes(f.text) && <option value={f.text}>{t('builder.unknownOption', { name: f.text })}</option>}
          {enumValues.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      ) : info?.kind === 'bool' && f.type === 'equal' ? (
        <select aria-label={t('builder.value', { n })} aria-invalid={at('value')} value={f.text} onChange={(e) => onChange({ ...f, text: e.target.value })}>
          <option value="">—</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : (
        <input
          type="text"
          aria-label={t('builder.value', { n })}
          aria-invalid={at('value')}
          placeholder={f.type === 'intersection' || f.type === 'related' ? t('builder.listPh') : info ? t(`builder.kindPh.${info.kind}`) : ''}
          value={f.text}
          onChange={(e) => onChange({ ...f, text: e.target.value })}
          list={enumValues ? `enum-${r.name}-${f.field}` : undefined}
        />
      )}
      {enumValues && (
        <datalist id={`enum-${r.name}-${f.field}`}>
          {enumValues.map((v) => (
            <option key={v} value={v} />
          ))}
        </datalist>
      )}
      <button type="button" className="icon" onClick={onRemove} aria-label={t('builder.removeFilter', { n })}>
        ×
      </button>
    </div>
  );
}

function FieldChecks({ label, all, chosen, onChange }: { label: string; all: string[]; chosen: string[]; onChange(v: string[]): void }) {
  const { t } = useI18n();
  return (
    <details className="field-checks">
      <summary>
        {label} <span className="muted">{chosen.length ? chosen.join(', ') : t('builder.none')}</span>
      </summary>
      <div className="check-grid" role="group" aria-label={label}>
        {all.map((n) => (
          <label key={n} className="inline">
            <input type="checkbox" checked={chosen.includes(n)} onChange={(e) => onChange(e.target.checked ? [...chosen, n] : chosen.filter((x) => x !== n))} />
            <span className="mono">{n}</span>
          </label>
        ))}
      </div>
    </details>
  );
}

export function SearchBuilder() {
  const { t, lang } = useI18n();
  const selected = useInstances((s) => s.selected);
  const endpoint = useEndpoint();
  const [draft, setDraftState] = useState<Draft>(loadDraft);
  // JSON typed by hand that cannot go into the form: kept as typed, with its mistakes.
  const [broken, setBroken] = useState<{ text: string; issues: Issue[] } | null>(null);
  const setDraft = (d: Draft) => {
    setDraftState(d);
    setBroken(null);
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify(d));
  };
  const r = getResource(draft.resource);
  const candidate = useMemo(() => compile(draft), [draft]);
  const { request, issues } = useMemo(() => validateSearch(r, candidate), [r, candidate]);
  const allIssues = broken?.issues ?? issues;
  const valid = !broken && request !== null;
  const json = JSON.stringify(candidate, null, 2);
  const path = `/cruddy/v2/${draft.resource}/search`;
  const ep = endpoint(path);
  const resources = sortByText(lang, RESOURCES, (x) => x.title[lang]);
  const fieldNames = fieldsOf(r).map((f) => f.name);

  const onJson = (textValue: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(textValue);
    } catch (e) {
      setBroken({ text: textValue, issues: [notJsonIssue(textValue, e instanceof Error ? e.message : String(e))] });
      return;
    }
    // A request of the right shape goes into the form, whose checks then name any other problem.
    const shape = searchRequestSchema.safeParse(parsed);
    if (shape.success) setDraft(decompile(draft.resource, shape.data));
    else setBroken({ text: textValue, issues: zodIssues(shape.error) });
  };

  const runner = useBuilderRun((client, target) => search(client, target, draft.resource, request!));
  const { result, error, running } = runner;
  // A request with mistakes has no answer: the one shown belonged to an earlier request.
  const resetRun = runner.reset;
  useEffect(() => {
    if (!valid) resetRun();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [valid]);
  const run = async () => {
    if (request) await runner.run();
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run();
    }
  };

  const update = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  // The export: the request as built (one page, or every match from the menu).
  const tableId = `v2:${draft.resource}`;
  const prefs = useUi((s) => s.columns[tableId]);
  const visibleKey = visibleColumnIds(tableId, resourceColumns(r, t, lang, false), prefs).join(',');
  const exportSource = useMemo<ExportSource | null>(() => {
    if (!request) return null;
    const { _relations, ...rest } = request;
    return {
      resource: draft.resource,
      search: { ...rest, ...(_relations ? { _relations } : {}) },
      columns: requestColumns(r, request, (n) => fieldLabel(t, n)),
      visible: visibleKey.split(',').filter(Boolean),
      title: r.title[lang],
    };
  }, [request, draft.resource, r, t, lang, visibleKey]);
  const listRels = relationsOf(r).filter(([, rel]) => rel.kind !== 'belongsTo').map(([n]) => n);
  return (
    <div className="page builder" onKeyDown={onKey}>
      <header className="page-head">
        <h1>{t('builder.v2Title')}</h1>
        <p className="muted">{t('builder.v2Intro')}</p>
      </header>
      <div className="builder-grid">
        <form className={`builder-form${broken ? ' not-applied' : ''}`} onSubmit={(e) => e.preventDefault()} aria-label={t('builder.form')}>
          {broken && (
            <p className="builder-stale" role="note" data-testid="not-applied">
              {t('builder.jsonNotApplied')}
            </p>
          )}
          <label className="field">
            <span>{t('builder.resource')}</span>
            <select value={draft.resource} onChange={(e) => setDraft(newDraft(e.target.value))} aria-label={t('builder.resource')}>
              {resources.map((x) => (
                <option key={x.name} value={x.name}>
                  {x.title[lang]} — {x.name}
                </option>
              ))}
            </select>
          </label>
          <div className="field-row">
            <label className="field grow">
              <span>{t('builder.virtualSearch')}</span>
              <input type="text" value={draft.vs.value} onChange={(e) => update({ vs: { ...draft.vs, value: e.target.value } })} aria-label={t('builder.virtualSearch')} />
            </label>
            <label className="inline">
              <input type="checkbox" checked={draft.vs.strict} onChange={(e) => update({ vs: { ...draft.vs, strict: e.target.checked } })} />
              {t('builder.strict')}
            </label>
          </div>
          <fieldset>
            <legend>{t('builder.filters')}</legend>
            {draft.filters.map((f, i) => (
              <FilterRow
                key={i}
                r={r}
                f={f}
                index={i}
                onChange={(nf) => update({ filters: draft.filters.map((x, j) => (j === i ? nf : x)) })}
                onRemove={() => update({ filters: draft.filters.filter((_, j) => j !== i) })}
                issues={allIssues.filter((x) => x.path === `filters.${i}` || x.path.startsWith(`filters.${i}.`))}
              />
            ))}
            <button type="button" onClick={() => update({ filters: [...draft.filters, defaultFilter(r, r.label)] })}>
              + {t('builder.addFilter')}
            </button>
          </fieldset>
          <fieldset>
            <legend>{t('builder.ordering')}</legend>
            {draft.ordering.map((o, i) => (
              <div className="filter-row" key={i} role="group" aria-label={t('builder.orderN', { n: i + 1 })}>
                <select aria-label={t('builder.orderField', { n: i + 1 })} aria-invalid={!fieldNames.includes(o.field)} value={o.field} onChange={(e) => update({ ordering: draft.ordering.map((x, j) => (j === i ? { ...x, field: e.target.value } : x)) })}>
                  {!fieldNames.includes(o.field) && <option value={o.field}>{t('builder.unknownOption', { name: o.field })}</option>}
                  {fieldNames.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
                <select aria-label={t('builder.direction', { n: i + 1 })} value={o.direction} onChange={(e) => update({ ordering: draft.ordering.map((x, j) => (j === i ? { ...x, direction: e.target.value as 'asc' | 'desc' } : x)) })}>
                  <option value="asc">{t('builder.asc')}</option>
                  <option value="desc">{t('builder.desc')}</option>
                </select>
                <button type="button" className="icon" aria-label={t('builder.removeOrder', { n: i + 1 })} onClick={() => update({ ordering: draft.ordering.filter((_, j) => j !== i) })}>
                  ×
                </button>
              </div>
            ))}
            <button type="button" onClick={() => update({ ordering: [...draft.ordering, { field: r.label, direction: 'asc' }] })}>
              + {t('builder.addOrder')}
            </button>
          </fieldset>
          <FieldChecks label={t('builder.include')} all={fieldNames} chosen={draft.include} onChange={(include) => update({ include })} />
          <FieldChecks label={t('builder.exclude')} all={fieldNames} chosen={draft.exclude} onChange={(exclude) => update({ exclude })} />
          <FieldChecks label={t('builder.loadRelations')} all={relationsOf(r).map(([n]) => n)} chosen={draft.relations} onChange={(relations) => update({ relations })} />
          <FieldChecks label={t('builder.idRelations')} all={listRels} chosen={draft.idRelations} onChange={(idRelations) => update({ idRelations })} />
          <div className="field-row">
            <label className="inline" title={t('builder.childrenHint')}>
              <input type="checkbox" checked={draft.children} onChange={(e) => update({ children: e.target.checked })} />
              chidlrens_all
            </label>
            <label className="inline" title={t('builder.parentsHint')}>
              <input type="checkbox" checked={draft.parents} onChange={(e) => update({ parents: e.target.checked })} />
              parents_all
            </label>
            <label className="field small">
              <span>limit</span>
              <input type="text" inputMode="numeric" value={draft.limit} onChange={(e) => update({ limit: e.target.value })} aria-label="limit" />
            </label>
            <label className="field small">
              <span>offset</span>
              <input type="text" inputMode="numeric" value={draft.offset} onChange={(e) => update({ offset: e.target.value })} aria-label="offset" />
            </label>
          </div>
        </form>
        <div className="builder-side">
          <IssueList issues={allIssues} valid={valid} />
          <RequestPanel
            firstTab="json"
            json={<TextEditor className="json-editor" value={broken?.text ?? json} onText={onJson} label={t('builder.jsonLabel')} />}
            url={ep.url}
            curl={{ method: 'POST', url: ep.url, body: request ?? candidate, instanceId: ep.instanceId }}
            copyJson={JSON.stringify(request ?? candidate, null, 2)}
            disabled={!valid}
          />
          <div className="row">
            <button type="button" className="primary" onClick={() => void run()} disabled={!valid || running} title="Ctrl+Enter">
              {running ? t('builder.running') : t('builder.run')}
            </button>
            <button type="button" className="ghost" onClick={() => setDraft(newDraft(draft.resource))}>
              {t('builder.reset')}
            </button>
            <span className="spacer" />
            <ExportMenu source={exportSource} disabledReason={t('exports.invalidRequest')} />
          </div>
          <SavedPanel<{ resource: string; request: SearchRequest }>
            builder="v2"
            current={request ? { resource: draft.resource, request } : null}
            onLoad={(v) => findResource(v.resource) && setDraft(decompile(v.resource, v.request))}
            describe={(v) => `${v.resource}: ${JSON.stringify(v.request.filters)}`}
          />
        </div>
      </div>
      <Results resource={r} linkResource={draft.resource} tableId={`v2:${draft.resource}`} result={result} error={error} running={running} instanceColumn={selected === 'all'} />
    </div>
  );
}
