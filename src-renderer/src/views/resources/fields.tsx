// How registry fields appear in generic views: labels, default columns, values.
import type { TFunction } from 'i18next';
import { fieldsOf, getResource, type FieldInfo, type ResourceDef } from '../../../../src-shared/resources/index';
import { riskBand } from '../../../../src-shared/resources/fields';
import { RiskPill, StatusPill } from '../../components/Badges';
import type { ColumnSpec } from '../../components/DataTable';
import { displayName } from '../../lib/instanceName';
import { LabelCell } from '../../components/Label';
import type { Row } from '../../data/source';
import type { Lang } from '../../i18n';
import { formatDate, formatDateTime, formatNumber } from '../../i18n/format';

/** A field's label: translated where the console knows it, else its API name. */
export function fieldLabel(t: TFunction, name: string): string {
  return t(`fields.${name}`, { defaultValue: name });
}

export { recordHref } from '../../lib/links';

/** Which catalog names the values of a field (`resource.field`, or `field` on every resource). */
const VALUE_NAMES: Record<string, string> = {
  alert_type: 'alertTypes',
  'service_assets.type': 'assetTypes',
  'public:serviceAssets.type': 'assetTypes',
  'agents.status': 'agentStatuses',
  'custom_fields.field_type': 'customFieldTypes',
  'occurrences.event_type': 'eventTypes',
  'findings.type': 'findingTypes',
  'public:findings.type': 'findingTypes',
  throughput_period: 'throughputPeriods',
};

/** Resources whose `status` (and `previous_status`) is an incident status. */
const INCIDENT_STATUS_FIELDS: Record<string, readonly string[]> = {
  service_asset_findings: ['status'],
  'public:incidents': ['status'],
  service_asset_finding_status_changes: ['status', 'previous_status'],
};

/** A value in the console's language where the console knows it (asset types, alert types...), else as stored. */
export function valueLabel(t: TFunction, resource: string, field: string, value: string): string {
  const ns = VALUE_NAMES[`${resource}.${field}`] ?? VALUE_NAMES[field];
  return ns ? t(`${ns}.${value}`, { defaultValue: value }) : value;
}

/** Integer fields that are names rather than quantities (3389, not 3,389). */
const NAMING_INT = /(^|_)(port|pid|display_id|year|code|number)$/;

export function FieldValue({ r, f, value, lang, t, instance }: { r: ResourceDef; f: FieldInfo; value: unknown; lang: Lang; t: TFunction; instance: string }) {
  if (value === null || value === undefined || value === '') return <span className="muted">—</span>;
  if (f.def?.ref) return <LabelCell instance={instance} resource={f.def.ref} id={String(value)} link missing={t('common.missing')} />;
  if (INCIDENT_STATUS_FIELDS[r.name]?.includes(f.name)) {
    return <StatusPill status={String(value)} label={t(`status.${String(value)}`, { defaultValue: String(value) })} />;
  }
  if (f.name === 'risklevel' && typeof value === 'number') return <RiskPill band={riskBand(value)} level={formatNumber(lang, value, 1)} bandLabel={t(`risk.${riskBand(value)}`)} />;
  if (f.name === 'risk' && typeof value === 'string') return <span className={`risk risk-${value}`}>{t(`risk.${value}`, { defaultValue: value })}</span>;
  switch (f.kind) {
    case 'timestamp':
      return <span className="mono">{formatDateTime(lang, String(value))}</span>;
    case 'date':
      return <span className="mono">{formatDate(lang, String(value))}</span>;
    case 'bool':
      return <span>{value === true || value === 1 ? t('common.yes') : t('common.no')}</span>;
    case 'int':
      // Ports, process ids and numbers that name something are read digit by digit: no grouping.
      return <span className="mono">{NAMING_INT.test(f.name) ? String(value) : formatNumber(lang, Number(value))}</span>;
    case 'number':
      return <span className="mono">{formatNumber(lang, Number(value))}</span>;
    case 'json': {
      const text = JSON.stringify(value);
      return <code className="json-inline">{text.length > 120 ? `${text.slice(0, 120)}…` : text}</code>;
    }
    case 'uuid':
      return <span className="mono">{String(value)}</span>;
    default:
      return <span>{typeof value === 'string' ? valueLabel(t, r.name, f.name, value) : String(value)}</span>;
  }
}

const SCALAR = new Set(['string', 'int', 'number', 'bool', 'timestamp', 'date', 'uuid']);

/** Columns of a resource's list: every readable field, a few shown by default. */
export function resourceColumns(r: ResourceDef, t: TFunction, lang: Lang, withInstance: boolean): ColumnSpec[] {
  const fields = fieldsOf(r).filter((f) => !f.def?.secret);
  const defaults = new Set<string>([r.label]);
  for (const f of fields) {
    if (defaults.size >= 6) break;
    if (f.name === 'id' || f.source === 'computed' || !SCALAR.has(f.kind) || f.name === 'created_at' || f.name === 'updated_at') continue;
    if (f.kind === 'string' && !f.def?.enum && /description|note|output|content|body|lua|query|solution|mitigation|synopsis|impact/.test(f.name)) continue;
    if (f.kind === 'uuid' && !f.def?.ref) continue;
    if (f.name === 'trace_id' || (f.kind === 'string' && /_id$/.test(f.name))) continue;
    defaults.add(f.name);
  }
  if (fields.some((f) => f.name === 'created_at')) defaults.add('created_at');
  // The label first, then the default columns, then the rest, each in declaration order.
  const ordered = [
    ...fields.filter((f) => f.name === r.label),
    ...fields.filter((f) => f.name !== r.label && defaults.has(f.name)),
    ...fields.filter((f) => !defaults.has(f.name)),
  ];
  const cols: ColumnSpec[] = ordered.map((f) => ({
    id: f.name,
    header: fieldLabel(t, f.name),
    size: f.name === r.label ? 260 : f.kind === 'timestamp' ? 150 : f.kind === 'bool' ? 80 : f.kind === 'uuid' ? 170 : f.name === 'status' ? 170 : 140,
    sortable: f.kind !== 'json',
    descFirst: f.kind === 'timestamp' || f.kind === 'int' || f.kind === 'number',
    align: f.kind === 'int' || f.kind === 'number' ? 'right' : undefined,
    defaultVisible: defaults.has(f.name),
    render: (row: Row) => <FieldValue r={r} f={f} value={row[f.name]} lang={lang} t={t} instance={row._instance.id} />,
    title: (row: Row) => (f.kind === 'string' && typeof row[f.name] === 'string' ? (row[f.name] as string) : undefined),
  }));
  if (withInstance) cols.unshift({ id: '_instance', header: t('fields.instance'), size: 120, render: (row) => <span className="tag">{displayName(row._instance, t)}</span> });
  return cols;
}

export const resourceTitle = (name: string, lang: Lang): string => getResource(name).title[lang];
