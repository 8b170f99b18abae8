// The incident table's columns: the ones triage needs by default, more to choose from.
import type { TFunction } from 'i18next';
import { riskBand } from '../../../../src-shared/resources/fields';
import { RiskPill, StatusPill } from '../../components/Badges';
import type { ColumnSpec } from '../../components/DataTable';
import { LabelCell } from '../../components/Label';
import { PendingMark } from '../changes/marks';
import { QueuedMark } from '../../components/QueuePanel';
import type { Row } from '../../data/source';
import type { Lang } from '../../i18n';
import { formatDateTime, formatNumber } from '../../i18n/format';
import { groupName, personName } from '../../state/people';
import { displayName } from '../../lib/instanceName';

/** Fields a column needs from the server besides ROW_FIELDS (with the opening's request, in data/incidentFields.ts). */
export { COLUMN_FIELDS } from '../../data/incidentFields';

const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

export function incidentColumns(t: TFunction, lang: Lang, withInstance: boolean): ColumnSpec[] {
  const missing = t('common.missing');
  const nobody = t('assign.nobody');
  const untitled = t('incidents.untitled');
  // The rows' words, translated once per language (a row drawn while scrolling looks them up).
  const words = new Map<string, string>();
  const word = (key: string, fallback: string): string => {
    let w = words.get(key);
    if (w === undefined) words.set(key, (w = t(key, { defaultValue: fallback })));
    return w;
  };
  const bool = (v: unknown) => (v === true || v === 1 ? t('common.yes') : v === false || v === 0 ? t('common.no') : '');
  const cols: ColumnSpec[] = [
    {
      id: 'display_id',
      header: '#',
      size: 84,
      minSize: 56,
      sortable: true,
      descFirst: true,
      align: 'right',
      render: (r: Row) => <span className="mono">{text(r.display_id)}</span>,
    },
    {
      id: 'title',
      header: t('fields.title'),
      size: 380,
      minSize: 120,
      sortable: true,
      render: (r) => (
        <span className="cell-title">
          <PendingMark instanceId={r._instance.id} id={text(r.id)} />
          <QueuedMark rowKey={`${r._instance.id}:${text(r.id)}`} />
          {text(r.title) || <span className="muted">{untitled}</span>}
        </span>
      ),
      title: (r) => text(r.title),
    },
    {
      id: 'status',
      header: t('fields.status'),
      // Wide enough for the longest status label in either language ("Information requested").
      size: 200,
      sortable: true,
      render: (r) => <StatusPill status={text(r.status)} label={word(`status.${text(r.status)}`, text(r.status))} />,
    },
    {
      id: 'risklevel',
      header: t('fields.risk'),
      size: 150,
      sortable: true,
      descFirst: true,
      render: (r) => {
        const level = typeof r.risklevel === 'number' ? r.risklevel : 0;
        const band = riskBand(level);
        return <RiskPill band={band} level={formatNumber(lang, level, 1)} bandLabel={word(`risk.${band}`, band)} />;
      },
    },
    {
      id: 'service_asset_id',
      header: t('fields.asset'),
      size: 170,
      render: (r) => <LabelCell instance={r._instance.id} resource="service_assets" id={r.service_asset_id as string | null} missing={missing} />,
    },
    {
      id: 'user_id',
      header: t('fields.owner'),
      size: 140,
      render: (r) => {
        const id = r.user_id as string | null | undefined;
        if (!id) return <span className="muted">{nobody}</span>;
        return <span title={personName(r._instance.id, id, true)}>{personName(r._instance.id, id) ?? '…'}</span>;
      },
    },
    {
      id: 'group_id',
      header: t('fields.group'),
      size: 170,
      defaultVisible: false,
      render: (r) => {
        const id = r.group_id as string | null | undefined;
        return id ? <span>{groupName(r._instance.id, id) ?? '…'}</span> : <span className="muted">—</span>;
      },
      title: (r) => groupName(r._instance.id, r.group_id as string | null) ?? undefined,
    },
    {
      id: 'finding_id',
      header: t('fields.finding'),
      size: 220,
      defaultVisible: false,
      render: (r) => <LabelCell instance={r._instance.id} resource="findings" id={r.finding_id as string | null} missing={missing} />,
    },
    {
      id: 'created_at',
      header: t('fields.created_at'),
      size: 150,
      sortable: true,
      descFirst: true,
      render: (r) => <span className="mono">{formatDateTime(lang, r.created_at as string)}</span>,
      title: (r) => text(r.created_at),
    },
    {
      id: 'updated_at',
      header: t('fields.updated_at'),
      size: 130,
      sortable: true,
      descFirst: true,
      defaultVisible: false,
      render: (r) => <span className="mono">{formatDateTime(lang, r.updated_at as string)}</span>,
    },
    {
      id: 'acknowledged_at',
      header: t('fields.acknowledged_at'),
      size: 130,
      sortable: true,
      descFirst: true,
      defaultVisible: false,
      render: (r) => <span className="mono">{formatDateTime(lang, r.acknowledged_at as string)}</span>,
    },
    {
      id: 'reopened_at',
      header: t('fields.reopened_at'),
      size: 130,
      sortable: true,
      descFirst: true,
      defaultVisible: false,
      render: (r) => <span className="mono">{formatDateTime(lang, r.reopened_at as string)}</span>,
    },
    { id: 'alert_type', header: t('fields.alert_type'), size: 110, sortable: true, defaultVisible: false, render: (r) => (r.alert_type ? word(`alertTypes.${String(r.alert_type)}`, String(r.alert_type)) : text(r.alert_type)) },
    {
      id: 'c_occurrence_count',
      header: t('fields.c_occurrence_count'),
      size: 90,
      sortable: true,
      descFirst: true,
      align: 'right',
      defaultVisible: false,
      render: (r) => formatNumber(lang, r.c_occurrence_count as number),
    },
    {
      id: 'c_reopened_count',
      header: t('fields.c_reopened_count'),
      size: 90,
      sortable: true,
      descFirst: true,
      align: 'right',
      defaultVisible: false,
      render: (r) => formatNumber(lang, r.c_reopened_count as number),
    },
    {
      id: 'immediate_action_score',
      header: t('fields.immediate_action_score'),
      size: 90,
      sortable: true,
      descFirst: true,
      align: 'right',
      defaultVisible: false,
      render: (r) => formatNumber(lang, r.immediate_action_score as number, 1),
    },
    { id: 'external', header: t('fields.external'), size: 80, sortable: true, defaultVisible: false, render: (r) => bool(r.external) },
    { id: 'customer_created', header: t('fields.customer_created'), size: 90, sortable: true, defaultVisible: false, render: (r) => bool(r.customer_created) },
    { id: 'itsm_sync_status', header: t('fields.itsm_sync_status'), size: 110, sortable: true, defaultVisible: false, render: (r) => text(r.itsm_sync_status) },
  ];
  if (withInstance) {
    cols.splice(1, 0, { id: 'instance', header: t('fields.instance'), size: 120, render: (r) => <span className="tag">{displayName(r._instance, t)}</span> });
  }
  return cols;
}
