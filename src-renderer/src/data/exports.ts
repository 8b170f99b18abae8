// What a view exports: the resource and exactly the request its table shows (the v2 search or
// the public standard query), the columns a CSV can have and the ones on screen. The export goes
// to one instance; "All instances" exports instance by instance, local ones only (a remote one
// is exported after a snapshot).
import type { ExportFormat, ExportRequest } from '../../../src-shared/schemas/transfer';
import { i18n, type Lang } from '../i18n';
import { useInstances } from '../state/instances';
import { useTransfers } from '../state/transfers';

export type { CsvOptions, Delimiter, ExportColumn, ExportSource, ExportTarget } from './exportTypes';
import type { CsvOptions, Delimiter, ExportSource, ExportTarget } from './exportTypes';
import { displayName } from '../lib/instanceName';

/** The instances an export can go to under the current selection (several for "All instances"). */
export function exportTargets(): ExportTarget[] {
  const { selected, list } = useInstances.getState();
  const of = (i: (typeof list)[number]): ExportTarget => ({ id: i.kind === 'main' ? 'main' : i.id, name: i.name, exportable: i.kind !== 'remote' });
  if (selected === 'all') return list.map(of);
  const inst = selected === 'main' ? list.find((i) => i.kind === 'main') : list.find((i) => i.id === selected);
  if (!inst) return selected === 'main' ? [{ id: 'main', name: '', exportable: true }] : [];
  return [of(inst)];
}

/** Whether the request asks for one page only (limit / offset, page / per_page). */
export function isPaged(src: ExportSource): boolean {
  if (src.search) return src.search.limit !== undefined || src.search.offset !== undefined;
  if (src.query !== undefined) {
    const q = new URLSearchParams(src.query);
    return q.has('page') || q.has('per_page');
  }
  return false;
}

/** The same request over every match. */
export function withoutPaging(src: ExportSource): ExportSource {
  if (src.search) {
    const { limit: _l, offset: _o, ...rest } = src.search;
    return { ...src, search: rest };
  }
  if (src.query !== undefined) {
    const q = new URLSearchParams(src.query);
    q.delete('page');
    q.delete('per_page');
    return { ...src, query: q.toString() };
  }
  return src;
}

export function requestOf(src: ExportSource, format: ExportFormat, target: ExportTarget, csv?: CsvOptions): ExportRequest {
  return {
    resource: src.resource,
    format,
    ...(src.search ? { search: src.search } : {}),
    ...(src.query !== undefined ? { query: src.query } : {}),
    ...(target.id !== 'main' ? { instance: target.id } : {}),
    ...(format === 'csv' && csv ? { columns: csv.columns, delimiter: csv.delimiter, bom: csv.bom, ...(csv.names ? { with_names: true } : {}), ...(csv.headers !== 'fields' ? { headers: csv.headers } : {}) } : {}),
  };
}

/** Spreadsheets in Russian use the semicolon (the comma is the decimal separator). */
export const defaultDelimiter = (lang: Lang): Delimiter => (lang === 'ru' ? ';' : ',');

/** The CSV's default columns: those on screen that the export knows, else all of them. */
export function defaultColumns(src: ExportSource): string[] {
  const known = new Set(src.columns.map((c) => c.id));
  const vis = src.visible.filter((c) => known.has(c));
  return vis.length ? vis : src.columns.map((c) => c.id);
}

export function runExport(src: ExportSource, format: ExportFormat, target: ExportTarget, csv?: CsvOptions): void {
  void useTransfers.getState().startExport(requestOf(src, format, target, csv), { title: src.title, instanceName: displayName(target, i18n.t) });
}
