// The import dialog: the files, where they go (a new local instance, or an existing one), the
// kind override and "skip unknown fields"; then the job's progress (records, bytes, rate, time
// left, phase) with Cancel; then the summary per resource, or the refusal with its file, position
// and reason. Hiding it while it runs leaves the progress in the corner.
import { useEffect, useId, useRef, type FormEvent } from 'react';
import { findResource, RESOURCES } from '../../../src-shared/resources/index';
import { reasonOf } from '../api/transfer';
import { useI18n } from '../i18n';
import { formatBytes, formatDuration, formatMs, formatNumber, formatPercent, sortByText } from '../i18n/format';
import { useInstances } from '../state/instances';
import { FINISHED, IMPORT_ACCEPT, mergeSummaries, useTransfers, type ImportTask } from '../state/transfers';
import { useUi } from '../state/ui';
import { Dialog } from './Dialog';
import { displayName } from '../lib/instanceName';

let pickerInput: HTMLInputElement | null = null;

/** Opens the system's file chooser for an import (needs a user gesture: a click, a key). */
export function pickImportFiles(): void {
  pickerInput?.click();
}

/** The hidden file input behind "Import…". */
export function ImportFilePicker() {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    pickerInput = ref.current;
    return () => {
      pickerInput = null;
    };
  }, []);
  return (
    <input
      ref={ref}
      type="file"
      multiple
      accept={IMPORT_ACCEPT}
      className="sr-only"
      tabIndex={-1}
      aria-hidden="true"
      data-testid="import-file-input"
      onChange={(e) => {
        const files = [...(e.target.files ?? [])];
        e.target.value = '';
        if (files.length) useTransfers.getState().offerFiles(files);
      }}
    />
  );
}

/** Fraction done of the running part, when it can be told. */
export function importFraction(task: ImportTask): number | null {
  if (task.stage === 'preparing') return task.preparing ? task.prepared / task.preparing : null;
  const p = task.job?.progress;
  if ((task.stage === 'running' || task.stage === 'cancelling') && p && p.total_bytes) {
    const own = Math.min(1, p.bytes / p.total_bytes);
    return task.parts > 1 ? (task.part + own) / task.parts : own;
  }
  return null;
}

export function usePhaseText(task: ImportTask): string {
  const { t } = useI18n();
  switch (task.stage) {
    case 'preparing':
      return t('import.stage.preparing');
    case 'uploading':
      return t('import.stage.uploading');
    case 'cancelling':
      return t('import.stage.cancelling');
    case 'running': {
      const phase = task.job?.progress.phase ?? 'starting';
      return t(`import.phase.${phase}`, { defaultValue: phase });
    }
    default:
      return t(`import.stage.${task.stage}`);
  }
}

function Options({ task, formId }: { task: ImportTask; formId: string }) {
  const { t, lang } = useI18n();
  const list = useInstances((s) => s.list);
  const setOptions = useTransfers((s) => s.setOptions);
  const o = task.options;
  const nameId = useId();
  const nameErr = useId();
  const locals = list.filter((i) => i.kind !== 'remote');
  const name = o.name.trim();
  const taken = list.some((i) => i.name === name);
  const hasZip = task.files.some((f) => f.name.toLowerCase().endsWith('.zip'));
  const resources = sortByText(lang, RESOURCES, (r) => r.title[lang]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (importReady(task, list.map((i) => i.name))) void useTransfers.getState().startImport();
  };
  return (
    <form id={formId} className="import-form" onSubmit={submit}>
      <section className="import-files" aria-label={t('import.files')}>
        {task.files.length === 0 ? (
          <div className="drop-hint">
            <span>{t('import.noFiles')}</span>
            <button type="button" onClick={pickImportFiles} autoFocus>
              {t('import.chooseFiles')}
            </button>
          </div>
        ) : (
          <>
            <ul className="file-list">
              {task.files.map((f, i) => (
                <li key={`${f.name}|${f.size}|${i}`}>
                  <span className="file-name mono" title={f.name}>
                    {f.name}
                  </span>
                  <span className="muted file-size">{formatBytes(lang, f.size)}</span>
                  <button type="button" className="icon" aria-label={t('import.removeFile', { name: f.name })} onClick={() => useTransfers.getState().removeFile(i)}>
                    ×
                  </button>
                </li>
              ))}
            </ul>
            <div className="row">
              <button type="button" className="ghost" onClick={pickImportFiles}>
                {t('import.addFiles')}
              </button>
              {task.files.length > 1 && <span className="muted">{hasZip ? t('import.oneByOne') : t('import.together')}</span>}
            </div>
          </>
        )}
        {task.rejected.length > 0 && (
          <p className="dialog-warn" role="alert">
            {t('import.rejected', { count: task.rejected.length, names: task.rejected.join(', ') })}
          </p>
        )}
      </section>
      <fieldset className="import-target">
        <legend>{t('import.into')}</legend>
        <label className={`choice${o.target === 'new' ? ' is-checked' : ''}`}>
          <input type="radio" name="import-target" checked={o.target === 'new'} onChange={() => setOptions({ target: 'new' })} />
          <span>
            <strong>{t('import.newInstance')}</strong>
            <span className="muted choice-hint">{t('import.newHint')}</span>
          </span>
        </label>
        {o.target === 'new' && (
          <div className="choice-detail">
            <label className="field" htmlFor={nameId}>
              <span>{t('import.newName')}</span>
            </label>
            <input
              id={nameId}
              type="text"
              value={o.name}
              maxLength={120}
              autoFocus={task.files.length > 0}
              onChange={(e) => setOptions({ name: e.target.value })}
              aria-invalid={!name || taken}
              aria-describedby={!name || taken ? nameErr : undefined}
            />
            {(!name || taken) && (
              <span id={nameErr} className="error small">
                {taken ? t('import.nameTaken') : t('import.nameEmpty')}
              </span>
            )}
          </div>
        )}
        <label className={`choice${o.target === 'existing' ? ' is-checked' : ''}`}>
          <input type="radio" name="import-target" checked={o.target === 'existing'} onChange={() => setOptions({ target: 'existing' })} />
          <span>
            <strong>{t('import.existing')}</strong>
            <span className="muted choice-hint">{t('import.existingHint')}</span>
          </span>
        </label>
        {o.target === 'existing' && (
          <div className="choice-detail">
            <select aria-label={t('import.existingInstance')} value={o.instance} onChange={(e) => setOptions({ instance: e.target.value })}>
              {locals.map((i) => (
                <option key={i.id} value={i.kind === 'main' ? 'main' : i.id}>
                  {displayName(i, t)} — {t(`instances.kind.${i.kind}`)}
                </option>
              ))}
            </select>
            {list.some((i) => i.kind === 'remote') && <span className="muted small">{t('import.remoteHint')}</span>}
          </div>
        )}
      </fieldset>
      <div className="field-row">
        <label className="field">
          <span>{t('import.kind')}</span>
          <select value={o.kind} onChange={(e) => setOptions({ kind: e.target.value })}>
            <option value="">{t('import.kindAuto')}</option>
            {resources.map((r) => (
              <option key={r.name} value={r.name}>
                {r.title[lang]} — {r.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline" title={t('import.ignoreUnknownHint')}>
          <input type="checkbox" checked={o.ignoreUnknown} onChange={(e) => setOptions({ ignoreUnknown: e.target.checked })} />
          {t('import.ignoreUnknown')}
        </label>
      </div>
    </form>
  );
}

/** Whether the options let the import start. */
export function importReady(task: ImportTask, names: readonly string[]): boolean {
  if (!task.files.length) return false;
  if (task.options.target === 'new') {
    const n = task.options.name.trim();
    return n.length > 0 && !names.includes(n);
  }
  return true;
}

function Progress({ task }: { task: ImportTask }) {
  const { t, lang } = useI18n();
  const phase = usePhaseText(task);
  const fraction = importFraction(task);
  const p = task.job?.progress;
  const uploading = task.stage === 'uploading';
  const preparing = task.stage === 'preparing';
  return (
    <div className="import-progress">
      <p className="import-phase" role="status" data-testid="import-phase">
        <strong>{phase}</strong>
        {task.parts > 1 && <span className="muted">{t('import.partOf', { n: task.part + 1, count: task.parts })}</span>}
        {task.label && <span className="mono muted file-name">{task.label}</span>}
      </p>
      <div className="bar-row">
        <progress
          className="bar"
          max={1}
          value={fraction ?? undefined}
          aria-label={t('import.progress')}
          aria-valuetext={fraction === null ? phase : formatPercent(lang, fraction)}
        />
        <span className="bar-pct mono">{fraction === null ? '' : formatPercent(lang, fraction)}</span>
      </div>
      <dl className="stats" data-testid="import-stats">
        {preparing ? (
          <div>
            <dt>{t('import.checked')}</dt>
            <dd>{t('import.bytesOf', { done: formatBytes(lang, task.prepared), total: formatBytes(lang, task.preparing) })}</dd>
          </div>
        ) : uploading ? (
          <div>
            <dt>{t('import.sending')}</dt>
            <dd>{formatBytes(lang, task.uploadBytes)}</dd>
          </div>
        ) : (
          <>
            <div>
              <dt>{t('import.records')}</dt>
              <dd data-testid="import-records">{formatNumber(lang, p?.records ?? 0)}</dd>
            </div>
            <div>
              <dt>{t('import.read')}</dt>
              <dd data-testid="import-bytes">
                {p?.total_bytes ? t('import.bytesOf', { done: formatBytes(lang, p.bytes), total: formatBytes(lang, p.total_bytes) }) : formatBytes(lang, p?.bytes ?? 0)}
              </dd>
            </div>
            <div>
              <dt>{t('import.rate')}</dt>
              <dd data-testid="import-rate">{t('import.perSecond', { n: formatNumber(lang, p?.rate ?? 0) })}</dd>
            </div>
            <div>
              <dt>{t('import.eta')}</dt>
              <dd data-testid="import-eta">{p?.eta_s === null || p?.eta_s === undefined ? '—' : formatDuration(lang, p.eta_s)}</dd>
            </div>
          </>
        )}
      </dl>
      {task.results.length > 0 && <p className="muted small">{t('import.partsDone', { count: task.results.length })}</p>}
    </div>
  );
}

function Summary({ task }: { task: ImportTask }) {
  const { t, lang } = useI18n();
  const s = mergeSummaries(task.results);
  const n = (v: number) => formatNumber(lang, v);
  const inst = task.instance?.name ?? '';
  const title = (name: string) => findResource(name)?.title[lang] ?? name;
  const rows = s ? Object.entries(s.resources).sort((a, b) => title(a[0]).localeCompare(title(b[0]), lang)) : [];
  const written = s ? Object.values(s.resources).reduce((x, c) => x + c.inserted + c.updated, 0) : 0;
  return (
    <div className="import-summary">
      <div className="import-result is-ok" role="status" data-testid="import-result">
        <strong>{t('import.doneTitle', { count: s?.records ?? 0, n: n(s?.records ?? 0), instance: inst })}</strong>
        <span>{written ? t('import.written', { count: written, n: n(written) }) : t('import.nothingChanged')}</span>
        {task.lateCancel && <span>{t('import.lateCancel')}</span>}
      </div>
      {rows.length > 0 && (
        <table className="mini summary-table" data-testid="import-summary">
          <caption className="sr-only">{t('import.perResource')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('import.resource')}</th>
              <th scope="col" className="num">
                {t('import.inserted')}
              </th>
              <th scope="col" className="num">
                {t('import.updated')}
              </th>
              <th scope="col" className="num">
                {t('import.unchanged')}
              </th>
              <th scope="col" className="num" title={t('import.repeatedHint')}>
                {t('import.repeated')}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([name, c]) => (
              <tr key={name} data-resource={name}>
                <th scope="row">
                  {title(name)} <span className="mono muted">{name}</span>
                </th>
                <td className="num">{n(c.inserted)}</td>
                <td className="num">{n(c.updated)}</td>
                <td className="num">{n(c.unchanged)}</td>
                <td className="num muted">{n(c.repeated)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s && (
        <ul className="summary-notes">
          {Object.entries(s.cleared_references).map(([k, v]) => (
            <li key={`c:${k}`}>{t('import.cleared', { count: v, n: n(v), field: k })}</li>
          ))}
          {Object.entries(s.ignored_fields).map(([k, v]) => (
            <li key={`i:${k}`}>{t('import.ignored', { count: v, n: n(v), field: k })}</li>
          ))}
          {s.generated_ids > 0 && <li>{t('import.generated', { count: s.generated_ids, n: n(s.generated_ids) })}</li>}
          {s.notes.map((x, i) => (
            <li key={`n:${i}`}>{x}</li>
          ))}
          <li className="muted">{t('import.took', { time: s.ms < 1000 ? formatMs(lang, s.ms) : formatDuration(lang, s.ms / 1000) })}</li>
        </ul>
      )}
    </div>
  );
}

function Refusal({ task }: { task: ImportTask }) {
  const { t, lang } = useI18n();
  const e = task.error!;
  const pos = e.line !== undefined ? (e.column !== undefined ? t('import.lineColumn', { line: formatNumber(lang, e.line), column: formatNumber(lang, e.column) }) : t('import.line', { line: formatNumber(lang, e.line) })) : null;
  const kept = task.results.length;
  const newOne = task.options.target === 'new';
  return (
    <div className="import-result is-error" role="alert" data-testid="import-error">
      <strong>{e.status === 409 ? t('import.conflict') : t('import.refused')}</strong>
      <span>{kept ? t('import.keptBefore', { count: kept }) : newOne ? t('import.nothingWrittenNew') : t('import.nothingWritten')}</span>
      <dl className="kv error-where">
        {e.file && (
          <>
            <dt>{t('import.file')}</dt>
            <dd className="mono" data-testid="error-file">
              {e.file}
            </dd>
          </>
        )}
        {pos && (
          <>
            <dt>{t('import.position')}</dt>
            <dd data-testid="error-position">{pos}</dd>
          </>
        )}
        {(e.record || e.id) && (
          <>
            <dt>{t('import.record')}</dt>
            <dd className="mono" data-testid="error-record">
              {e.record && e.id ? `${e.record} (${e.id})` : (e.record ?? e.id)}
            </dd>
          </>
        )}
        {e.field && (
          <>
            <dt>{t('import.field')}</dt>
            <dd className="mono" data-testid="error-field">
              {e.field}
            </dd>
          </>
        )}
        <dt>{t('import.reason')}</dt>
        <dd data-testid="error-reason">{e.status === 409 && e.message === 'name_already_used' ? t('import.nameTaken') : reasonOf(e)}</dd>
      </dl>
    </div>
  );
}

function Cancelled({ task }: { task: ImportTask }) {
  const { t } = useI18n();
  const kept = task.results.length;
  return (
    <div className="import-result is-cancelled" role="status" data-testid="import-cancelled">
      <strong>{t('import.cancelledTitle')}</strong>
      <span>{kept ? t('import.keptBefore', { count: kept }) : task.options.target === 'new' ? t('import.nothingWrittenNew') : t('import.nothingWritten')}</span>
    </div>
  );
}

export function ImportDialog() {
  const { t } = useI18n();
  const task = useTransfers((s) => s.task);
  const names = useInstances((s) => s.list).map((i) => i.name);
  const selected = useInstances((s) => s.selected);
  const mainId = useInstances((s) => s.mainId);
  const formId = useId();
  if (!task) return null;
  const running = !FINISHED.includes(task.stage) && task.stage !== 'options';
  const hide = () => useUi.getState().openDialog(null);
  const close = () => {
    hide();
    useTransfers.getState().clearImport();
  };
  const inst = task.instance;
  const isCurrent = inst && (inst.id === selected || (selected === 'main' && inst.id === mainId));
  let footer;
  if (task.stage === 'options') {
    footer = (
      <>
        <button type="button" onClick={close}>
          {t('common.cancel')}
        </button>
        <button type="submit" form={formId} className="primary" disabled={!importReady(task, names)}>
          {task.files.length > 1 ? t('import.startMany', { count: task.files.length }) : t('import.start')}
        </button>
      </>
    );
  } else if (running) {
    footer = (
      <>
        <button type="button" className="ghost" onClick={hide}>
          {t('import.hide')}
        </button>
        <button type="button" className="danger" onClick={() => void useTransfers.getState().cancelImport()} disabled={task.stage === 'cancelling'} autoFocus>
          {task.stage === 'cancelling' ? t('import.cancelling') : t('import.cancel')}
        </button>
      </>
    );
  } else {
    footer = (
      <>
        {task.stage === 'failed' && task.results.length === 0 && (
          <button type="button" onClick={() => useTransfers.setState({ task: { ...task, stage: 'options', error: null, job: null } })}>
            {t('import.retry')}
          </button>
        )}
        {inst && task.results.length > 0 && !isCurrent && (
          <button
            type="button"
            onClick={() => {
              useInstances.getState().select(inst.id);
              close();
            }}
          >
            {t('import.switchTo', { name: inst.name })}
          </button>
        )}
        <button type="button" className="primary" onClick={close} autoFocus>
          {t('common.close')}
        </button>
      </>
    );
  }
  return (
    <Dialog title={task.files.length > 1 ? t('import.titleMany', { count: task.files.length }) : t('import.title')} onClose={running ? hide : close} wide className="import-dialog" footer={footer}>
      {task.stage === 'options' && <Options task={task} formId={formId} />}
      {running && <Progress task={task} />}
      {task.stage === 'done' && <Summary task={task} />}
      {task.stage === 'failed' && <Refusal task={task} />}
      {task.stage === 'cancelled' && <Cancelled task={task} />}
    </Dialog>
  );
}
