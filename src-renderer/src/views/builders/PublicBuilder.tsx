// The public API's standard filters builder: <field>=<operator>,<value>... with page, per_page,
// order and search. It edits the objects parseStandardQuery reads, shows the live URL, checks
// fields and operators as the server will, runs it, copies it as JSON, URL or curl, and saves it
// per instance.
import { useMemo, useState, type KeyboardEvent } from 'react';
import { PUBLIC_ENTITIES, publicEntity, publicResource } from '../../../../src-shared/public/entities';
import {
  enumValueMessage,
  formatStandardQuery,
  LIST_OPERATORS,
  NO_VALUE_OPERATORS,
  parseStandardQueryAll,
  STANDARD_OPERATORS,
  valueOutsideEnum,
  type StandardOperator,
  type StandardQuery,
} from '../../../../src-shared/public/standard-filters';
import { fieldOf, fieldsOf, getResource, relationsOf, type ResourceDef } from '../../../../src-shared/resources/index';
import { publicList, PUBLIC } from '../../api/radar';
import { visibleColumnIds } from '../../components/DataTable';
import { ExportMenu } from '../../components/ExportMenu';
import type { ExportSource } from '../../data/exports';
import { useI18n } from '../../i18n';
import { formatNumber } from '../../i18n/format';
import { serverText } from '../../i18n/serverText';
import { useInstances } from '../../state/instances';
import { useUi } from '../../state/ui';
import { fieldLabel, resourceColumns } from '../resources/fields';
import { IssueList, RequestPanel, Results, SavedPanel, TextEditor, useBuilderRun, useEndpoint } from './common';
import { coercible, type Issue } from './validate';

type EntityPath = (typeof PUBLIC_ENTITIES)[number]['path'];

export interface PubFilter {
  field: string;
  /** An operator of the grammar, or the unknown one a query typed by hand names. */
  op: StandardOperator | (string & {});
  text: string;
}

const isOperator = (op: string): op is StandardOperator => (STANDARD_OPERATORS as readonly string[]).includes(op);
const takesNoValue = (op: string) => isOperator(op) && NO_VALUE_OPERATORS.includes(op);
const takesList = (op: string) => isOperator(op) && LIST_OPERATORS.includes(op);

export interface PubDraft {
  entity: EntityPath;
  filters: PubFilter[];
  order: { field: string; direction: 'asc' | 'desc' }[];
  search: string;
  page: string;
  perPage: string;
}

const DRAFT_KEY = 'radar-console.publicDraft';

export function newPubDraft(entity: EntityPath = 'incidents'): PubDraft {
  return { entity, filters: [], order: [], search: '', page: '1', perPage: '50' };
}

/** The query string of a draft, written the way formatStandardQuery writes a parsed query. */
export function draftQuery(d: PubDraft): string {
  const p = new URLSearchParams();
  for (const f of d.filters) p.append(f.field, takesNoValue(f.op) ? f.op : `${f.op},${takesList(f.op) ? f.text.split(',').map((x) => x.trim()).join(',') : f.text}`);
  if (d.order.length) p.set('order', d.order.map((o) => (o.direction === 'desc' ? `-${o.field}` : o.field)).join(','));
  if (d.search) p.set('search', d.search);
  if (d.page.trim() && d.page.trim() !== '1') p.set('page', d.page.trim());
  if (d.perPage.trim() && d.perPage.trim() !== '50') p.set('per_page', d.perPage.trim());
  return p.toString();
}

/** A query string as the object Fastify hands to parseStandardQuery (repeated keys as arrays). */
export function queryObject(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(qs)) {
    const cur = out[k];
    out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
  return out;
}

export function draftFromQuery(entity: EntityPath, q: StandardQuery): PubDraft {
  return {
    entity,
    filters: q.filters.map((f) => ({ field: f.field, op: f.op, text: f.values.join(',') })),
    order: q.order,
    search: q.search,
    page: String(q.page),
    perPage: String(q.per_page),
  };
}

/**
 * A query string as typed, into the form part by part, mistakes included (an unknown operator,
 * a missing value, a page that is not a number), so the form never shows an older query.
 */
export function draftFromText(entity: EntityPath, qs: string): PubDraft {
  const d = newPubDraft(entity);
  for (const [k, v] of new URLSearchParams(qs)) {
    if (k === 'page') d.page = v;
    else if (k === 'per_page') d.perPage = v;
    else if (k === 'search') d.search = v;
    else if (k === 'order') {
      for (const part of v.split(',').map((x) => x.trim()).filter(Boolean)) {
        const m = /^(-)?([^\s]+)(?:\s+(asc|desc))?$/i.exec(part);
        d.order.push(m ? { field: m[2]!, direction: m[1] ? 'desc' : ((m[3]?.toLowerCase() ?? 'asc') as 'asc' | 'desc') } : { field: part, direction: 'asc' });
      }
    } else {
      const comma = v.indexOf(',');
      d.filters.push({ field: k, op: (comma < 0 ? v : v.slice(0, comma)).trim().toLowerCase(), text: comma < 0 ? '' : v.slice(comma + 1) });
    }
  }
  return d;
}

/** The values a field (or `entity.field`) may hold, when they are a fixed set. */
function enumOf(r: ResourceDef, field: string): readonly string[] | undefined {
  const dot = field.indexOf('.');
  if (dot < 0) return fieldOf(r, field)?.def?.enum;
  const rel = r.relations?.[field.slice(0, dot)];
  return rel?.kind === 'belongsTo' ? fieldOf(getResource(rel.target), field.slice(dot + 1))?.def?.enum : undefined;
}

/** Checks the parsed query's fields and operators against the entity, as the server does. */
export function checkStandard(r: ResourceDef, q: StandardQuery): Issue[] {
  const issues: Issue[] = [];
  q.filters.forEach((f, i) => {
    const path = `${f.field}`;
    let target = r;
    let name = f.field;
    const dot = f.field.indexOf('.');
    if (dot >= 0) {
      const rel = r.relations?.[f.field.slice(0, dot)];
      if (!rel || rel.kind !== 'belongsTo') {
        issues.push({ path, key: 'validate.unknownEntity', values: { name: f.field.slice(0, dot) } });
        return;
      }
      target = getResource(rel.target);
      name = f.field.slice(dot + 1);
    }
    const info = fieldOf(target, name);
    if (!info) {
      issues.push({ path, key: 'validate.unknownField', values: { name: f.field } });
      return;
    }
    const bad = valueOutsideEnum(f, info.def?.enum);
    if (bad !== undefined) {
      const allowed = info.def!.enum!;
      issues.push({ path, key: 'validate.enumValue', values: { field: f.field, value: bad, values: allowed.join(', '), message: enumValueMessage(f.field, bad, allowed) } });
    } else if (f.op === 'like' && info.kind !== 'string') issues.push({ path, key: 'validate.likeText', values: { field: f.field } });
    else if ((f.op === 'gt' || f.op === 'lt') && (info.kind === 'json' || info.kind === 'bool')) issues.push({ path, key: 'validate.opField', values: { op: f.op, field: f.field } });
    else if (f.op !== 'like' && !NO_VALUE_OPERATORS.includes(f.op) && info.kind !== 'json' && !f.values.every((v) => coercible(info, v))) {
      issues.push({ path, key: 'validate.value', values: { field: f.field, kind: info.kind } });
    }
    void i;
  });
  for (const o of q.order) {
    if (o.field.includes('.')) issues.push({ path: 'order', key: 'validate.orderNested', values: { name: o.field } });
    else if (!fieldOf(r, o.field)) issues.push({ path: 'order', key: 'validate.unknownField', values: { name: o.field } });
    else if (fieldOf(r, o.field)!.kind === 'json') issues.push({ path: 'order', key: 'validate.notSortable', values: { name: o.field } });
  }
  return issues;
}

function loadDraft(): PubDraft {
  try {
    const d = JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? 'null') as PubDraft | null;
    if (d && publicEntity(d.entity)) return { ...newPubDraft(d.entity), ...d };
  } catch {
    // start afresh
  }
  return newPubDraft();
}

/**
 * A query string as a person reads and types it: commas, Cyrillic and spaces as they are; only
 * what would change its meaning (% & = # +) stays encoded. It reads back to the same query.
 */
export function readableQuery(qs: string): string {
  const keep = (x: string) => x.replace(/[%&=#+]/g, (c) => encodeURIComponent(c));
  return [...new URLSearchParams(qs)].map(([k, v]) => `${keep(k)}=${keep(v)}`).join('&');
}

export function PublicBuilder() {
  const { t, lang } = useI18n();
  const selected = useInstances((s) => s.selected);
  const endpoint = useEndpoint();
  const [draft, setDraftState] = useState<PubDraft>(loadDraft);
  // The query typed by hand while it does not parse: it is what the checks read, and the form
  // shows what could be read from it, marked as not applied.
  const [typed, setTyped] = useState<string | null>(null);
  const setDraft = (d: PubDraft, text: string | null = null) => {
    setDraftState(d);
    setTyped(text);
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify(d));
  };
  const entity = publicEntity(draft.entity)!;
  const r = publicResource(entity);
  const qs = typed ?? draftQuery(draft);
  // Every mistake at once: each part the grammar cannot read, then the fields, operators and
  // values of the parts it can.
  const checked = useMemo(() => {
    const { query, errors } = parseStandardQueryAll(queryObject(qs));
    const issues: Issue[] = [...errors.map((e) => ({ path: e.param, key: 'validate.standard', values: { message: serverText(lang, e.message) } })), ...checkStandard(r, query)];
    return { parsed: errors.length ? null : query, issues };
  }, [qs, r, lang]);
  const issues = checked.issues;
  const valid = checked.parsed !== null && checked.issues.length === 0;
  const flagged = new Set(issues.map((i) => i.path));
  const normalized = checked.parsed ? formatStandardQuery(checked.parsed) : qs;
  const path = `${PUBLIC}/${draft.entity}${normalized ? `?${normalized}` : ''}`;
  const ep = endpoint(path);
  const fieldOptions = [
    ...fieldsOf(r).map((f) => f.name),
    ...relationsOf(r)
      .filter(([, rel]) => rel.kind === 'belongsTo')
      .flatMap(([name, rel]) => fieldsOf(getResource(rel.target)).map((f) => `${name}.${f.name}`)),
  ];

  const onText = (text: string) => {
    const q = text.trim().replace(/^\?/, '');
    const read = parseStandardQueryAll(queryObject(q));
    setDraft(read.errors.length ? draftFromText(draft.entity, q) : draftFromQuery(draft.entity, read.query), read.errors.length ? q : null);
  };

  const runner = useBuilderRun((client, target) => publicList(client, target, draft.entity, normalized));
  const { result, error, running } = runner;
  const run = async () => {
    if (valid) await runner.run();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run();
    }
  };
  const update = (patch: Partial<PubDraft>) => setDraft({ ...draft, ...patch });
  // The export: the standard query as built (its page, or every match from the menu), in the
  // public records' shape (incidents with their asset and occurrences, and front_link).
  const tableId = `public:${draft.entity}`;
  const prefs = useUi((s) => s.columns[tableId]);
  const visibleKey = visibleColumnIds(tableId, resourceColumns(r, t, lang, false), prefs).join(',');
  const exportSource = useMemo<ExportSource | null>(() => {
    if (!valid) return null;
    const names = [
      ...fieldsOf(r)
        .filter((f) => !f.def?.secret)
        .map((f) => f.name),
      ...entity.load,
      'front_link',
    ];
    return {
      resource: draft.entity,
      query: normalized,
      columns: names.map((id) => ({ id, label: fieldLabel(t, id) })),
      visible: visibleKey.split(',').filter(Boolean),
      title: t(`builder.entities.${draft.entity}`),
    };
  }, [valid, normalized, draft.entity, entity, r, t, visibleKey]);
  return (
    <div className="page builder" onKeyDown={onKey}>
      <header className="page-head">
        <h1>{t('builder.publicTitle')}</h1>
        <p className="muted">{t('builder.publicIntro')}</p>
      </header>
      <div className="builder-grid">
        <form className={`builder-form${typed !== null ? ' not-applied' : ''}`} onSubmit={(e) => e.preventDefault()} aria-label={t('builder.form')}>
          {typed !== null && (
            <p className="builder-stale" role="note" data-testid="not-applied">
              {t('builder.notApplied', { count: issues.length, n: formatNumber(lang, issues.length) })}
            </p>
          )}
          <label className="field">
            <span>{t('builder.entity')}</span>
            <select value={draft.entity} onChange={(e) => setDraft(newPubDraft(e.target.value as EntityPath))} aria-label={t('builder.entity')}>
              {PUBLIC_ENTITIES.map((x) => (
                <option key={x.path} value={x.path}>
                  {t(`builder.entities.${x.path}`)} — {x.path}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>search</span>
            <input type="text" value={draft.search} onChange={(e) => update({ search: e.target.value })} aria-label={t('builder.searchParam')} />
          </label>
          <fieldset>
            <legend>{t('builder.filters')}</legend>
            <datalist id="public-fields">
              {fieldOptions.map((f) => (
                <option key={f} value={f} />
              ))}
            </datalist>
            {draft.filters.map((f, i) => {
              const bad = flagged.has(f.field);
              const known = isOperator(f.op);
              const allowed = enumOf(r, f.field);
              return (
              <div className={`filter-row${bad ? ' has-issue' : ''}`} key={i} role="group" aria-label={t('builder.filterN', { n: i + 1 })}>
                <input type="text" list="public-fields" aria-label={t('builder.filterField', { n: i + 1 })} aria-invalid={bad} value={f.field} onChange={(e) => update({ filters: draft.filters.map((x, j) => (j === i ? { ...x, field: e.target.value } : x)) })} />
                <select aria-label={t('builder.operator', { n: i + 1 })} aria-invalid={!known} value={f.op} onChange={(e) => update({ filters: draft.filters.map((x, j) => (j === i ? { ...x, op: e.target.value as StandardOperator } : x)) })}>
                  {!known && (
                    <option value={f.op}>
                      {f.op || '∅'} — {t('builder.unknownOperator')}
                    </option>
                  )}
                  {STANDARD_OPERATORS.map((op) => (
                    <option key={op} value={op}>
                      {op} — {t(`builder.ops.${op}`)}
                    </option>
                  ))}
                </select>
                {takesNoValue(f.op) ? (
                  <span className="muted hint">{t('builder.noValue')}</span>
                ) : (
                  <input
                    type="text"
                    aria-label={t('builder.value', { n: i + 1 })}
                    aria-invalid={bad}
                    placeholder={takesList(f.op) ? t('builder.listPh') : allowed ? allowed.join(', ') : ''}
                    value={f.text}
                    list={allowed ? `public-enum-${i}` : undefined}
                    onChange={(e) => update({ filters: draft.filters.map((x, j) => (j === i ? { ...x, text: e.target.value } : x)) })}
                  />
                )}
                {allowed && (
                  <datalist id={`public-enum-${i}`}>
                    {allowed.map((v) => (
                      <option key={v} value={v} />
                    ))}
                  </datalist>
                )}
                <button type="button" className="icon" aria-label={t('builder.removeFilter', { n: i + 1 })} onClick={() => update({ filters: draft.filters.filter((_, j) => j !== i) })}>
                  ×
                </button>
              </div>
              );
            })}
            <button type="button" onClick={() => update({ filters: [...draft.filters, { field: r.label, op: 'like', text: '' }] })}>
              + {t('builder.addFilter')}
            </button>
          </fieldset>
          <fieldset>
            <legend>order</legend>
            {draft.order.map((o, i) => (
              <div className="filter-row" key={i} role="group" aria-label={t('builder.orderN', { n: i + 1 })}>
                <select aria-label={t('builder.orderField', { n: i + 1 })} aria-invalid={!fieldOf(r, o.field)} value={o.field} onChange={(e) => update({ order: draft.order.map((x, j) => (j === i ? { ...x, field: e.target.value } : x)) })}>
                  {!fieldOf(r, o.field) && <option value={o.field}>{t('builder.unknownOption', { name: o.field })}</option>}
                  {fieldsOf(r).map((f) => (
                    <option key={f.name} value={f.name}>
                      {f.name}
                    </option>
                  ))}
                </select>
                <select aria-label={t('builder.direction', { n: i + 1 })} value={o.direction} onChange={(e) => update({ order: draft.order.map((x, j) => (j === i ? { ...x, direction: e.target.value as 'asc' | 'desc' } : x)) })}>
                  <option value="asc">{t('builder.asc')}</option>
                  <option value="desc">{t('builder.desc')}</option>
                </select>
                <button type="button" className="icon" aria-label={t('builder.removeOrder', { n: i + 1 })} onClick={() => update({ order: draft.order.filter((_, j) => j !== i) })}>
                  ×
                </button>
              </div>
            ))}
            <button type="button" onClick={() => update({ order: [...draft.order, { field: 'created_at', direction: 'desc' }] })}>
              + {t('builder.addOrder')}
            </button>
          </fieldset>
          <div className="field-row">
            <label className="field small">
              <span>page</span>
              <input type="text" inputMode="numeric" value={draft.page} onChange={(e) => update({ page: e.target.value })} aria-label="page" />
            </label>
            <label className="field small">
              <span>per_page</span>
              <input type="text" inputMode="numeric" value={draft.perPage} onChange={(e) => update({ perPage: e.target.value })} aria-label="per_page" />
            </label>
          </div>
        </form>
        <div className="builder-side">
          <IssueList issues={issues} valid={valid} />
          <RequestPanel
            firstTab="query"
            json={<TextEditor className="json-editor query-editor" value={readableQuery(normalized)} onText={onText} label={t('builder.queryLabel')} />}
            url={ep.url}
            curl={{ method: 'GET', url: ep.url, instanceId: ep.instanceId }}
            copyJson={JSON.stringify(checked.parsed ?? {}, null, 2)}
            disabled={!valid}
          />
          <div className="row">
            <button type="button" className="primary" onClick={() => void run()} disabled={!valid || running} title="Ctrl+Enter">
              {running ? t('builder.running') : t('builder.run')}
            </button>
            <button type="button" className="ghost" onClick={() => setDraft(newPubDraft(draft.entity))}>
              {t('builder.reset')}
            </button>
            <span className="spacer" />
            <ExportMenu source={exportSource} disabledReason={t('exports.invalidRequest')} />
          </div>
          <SavedPanel<{ entity: EntityPath; query: string }>
            builder="public"
            current={valid ? { entity: draft.entity, query: normalized } : null}
            onLoad={(v) => {
              if (!publicEntity(v.entity)) return;
              // a saved query the grammar no longer reads comes back as typed, with its mistakes shown
              const read = parseStandardQueryAll(queryObject(v.query));
              setDraft(read.errors.length ? draftFromText(v.entity, v.query) : draftFromQuery(v.entity, read.query), read.errors.length ? v.query : null);
            }}
            describe={(v) => `${v.entity}?${v.query}`}
          />
        </div>
      </div>
      <Results resource={r} linkResource={entity.resource} tableId={`public:${draft.entity}`} result={result} error={error} running={running} instanceColumn={selected === 'all'} />
    </div>
  );
}
