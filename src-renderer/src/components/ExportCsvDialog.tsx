// Exporting as CSV: which columns (the ones on screen by default, in their order), the separator,
// the byte-order mark spreadsheets want, and names beside the ids the list shows as names.
import { useMemo, useState, type FormEvent } from 'react';
import { CSV_HEADERS, type CsvHeaders } from '../../../src-shared/choices';
import { defaultColumns, defaultDelimiter, runExport, type Delimiter, type ExportSource, type ExportTarget } from '../data/exports';
import { useI18n } from '../i18n';
import { formatNumber } from '../i18n/format';
import { useUi } from '../state/ui';
import { Dialog } from './Dialog';

const DELIMITERS: Delimiter[] = [',', ';', '\t'];
const DELIMITER_KEYS: Record<Delimiter, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };

export function ExportCsvDialog({ source, target }: { source: ExportSource; target: ExportTarget }) {
  const { t, lang } = useI18n();
  const close = () => useUi.getState().openDialog(null);
  const initial = useMemo(() => defaultColumns(source), [source]);
  const [chosen, setChosen] = useState<string[]>(initial);
  const [delimiter, setDelimiter] = useState<Delimiter>(defaultDelimiter(lang));
  const [bom, setBom] = useState(true);
  const [names, setNames] = useState(true);
  const [headers, setHeaders] = useState<CsvHeaders>('fields');
  // The chosen columns first in their order, then the rest in the table's order.
  const ordered = useMemo(() => [...initial, ...source.columns.map((c) => c.id).filter((id) => !initial.includes(id))], [initial, source.columns]);
  const byId = new Map(source.columns.map((c) => [c.id, c]));
  const toggle = (id: string, on: boolean) => setChosen((cur) => (on ? ordered.filter((x) => x === id || cur.includes(x)) : cur.filter((x) => x !== id)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!chosen.length) return;
    close();
    runExport(source, 'csv', target, { columns: chosen, delimiter, bom, names, headers });
  };
  return (
    <Dialog
      title={t('exports.csvTitle', { title: source.title })}
      onClose={close}
      wide
      className="export-csv-dialog"
      footer={
        <>
          <button type="button" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" form="export-csv-form" className="primary" disabled={!chosen.length}>
            {t('exports.csvStart', { count: chosen.length, n: formatNumber(lang, chosen.length) })}
          </button>
        </>
      }
    >
      <form id="export-csv-form" className="export-csv" onSubmit={submit}>
        <p className="dialog-text">{t('exports.csvFrom', { instance: target.name })}</p>
        <fieldset className="csv-columns">
          <legend>{t('exports.columns')}</legend>
          <div className="row">
            <button type="button" className="ghost" onClick={() => setChosen(initial)}>
              {t('exports.visibleColumns')}
            </button>
            <button type="button" className="ghost" onClick={() => setChosen(ordered)}>
              {t('exports.allColumns')}
            </button>
            <button type="button" className="ghost" onClick={() => setChosen([])}>
              {t('exports.noColumns')}
            </button>
            <span className="spacer" />
            <span className="muted small" aria-live="polite">
              {t('exports.chosen', { count: chosen.length, n: formatNumber(lang, chosen.length), total: formatNumber(lang, ordered.length) })}
            </span>
          </div>
          <ul className="csv-column-list">
            {ordered.map((id) => (
              <li key={id}>
                <label>
                  <input type="checkbox" checked={chosen.includes(id)} onChange={(e) => toggle(id, e.target.checked)} />
                  <span>{byId.get(id)?.label ?? id}</span>
                  {byId.get(id)?.label !== id && <span className="mono muted">{id}</span>}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <div className="field-row">
          <label className="field">
            <span>{t('exports.delimiter')}</span>
            <select value={delimiter} onChange={(e) => setDelimiter(e.target.value as Delimiter)}>
              {DELIMITERS.map((d) => (
                <option key={DELIMITER_KEYS[d]} value={d}>
                  {t(`exports.delimiters.${DELIMITER_KEYS[d]}`)}
                </option>
              ))}
            </select>
          </label>
          <label className="field" title={t('exports.headersHint')}>
            <span>{t('exports.headers')}</span>
            <select value={headers} onChange={(e) => setHeaders(e.target.value as CsvHeaders)}>
              {CSV_HEADERS.map((h) => (
                <option key={h} value={h}>
                  {t(`exports.headerStyles.${h}`)}
                </option>
              ))}
            </select>
          </label>
          <label className="inline" title={t('exports.bomHint')}>
            <input type="checkbox" checked={bom} onChange={(e) => setBom(e.target.checked)} />
            {t('exports.bom')}
          </label>
          <label className="inline" title={t('exports.namesHint')}>
            <input type="checkbox" checked={names} onChange={(e) => setNames(e.target.checked)} />
            {t('exports.names')}
          </label>
        </div>
      </form>
    </Dialog>
  );
}
