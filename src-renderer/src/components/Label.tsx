// A related record's label, with a link to its view. Each label follows its own arrival: when a
// page's labels arrive, the cells showing them are drawn again, not the table's rows.
import { useLabel } from '../data/lookup';
import { useI18n } from '../i18n';
import { recordHref } from '../lib/links';

function text(label: string | null | undefined, id: string, missing: string): string {
  return label === undefined ? '…' : label === null ? missing : label || id;
}

export function RecordLabel(props: { instance: string; resource: string; id: string | null | undefined; link?: boolean }) {
  const { t } = useI18n();
  const label = useLabel(props.instance, props.resource, props.id);
  return <LabelView {...props} label={label} missing={t('common.missing')} />;
}

/** A label in a table's cell: the text for a missing record given (no translation asked per cell). */
export function LabelCell(props: { instance: string; resource: string; id: string | null | undefined; link?: boolean; missing: string }) {
  const label = useLabel(props.instance, props.resource, props.id);
  return <LabelView {...props} label={label} />;
}

function LabelView(props: { instance: string; resource: string; id: string | null | undefined; link?: boolean; label: string | null | undefined; missing: string }) {
  if (!props.id) return <span className="muted">—</span>;
  const shown = text(props.label, props.id, props.missing);
  if (!props.link) return <span>{shown}</span>;
  return (
    <a href={recordHref(props.resource, props.id, props.instance)} onClick={(e) => e.stopPropagation()}>
      {shown}
    </a>
  );
}
