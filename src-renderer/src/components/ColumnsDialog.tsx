// Choosing, ordering and resetting a table's columns.
import { useI18n } from '../i18n';
import { useUi } from '../state/ui';
import { columnsOf } from './DataTable';
import { Dialog } from './Dialog';

export function ColumnsDialog({ table }: { table: string }) {
  const { t } = useI18n();
  const prefs = useUi((s) => s.columns[table]) ?? { visibility: {}, sizing: {}, order: [] };
  const setColumns = useUi((s) => s.setColumns);
  const close = () => useUi.getState().openDialog(null);
  const specs = columnsOf(table);
  const order = [...prefs.order.filter((id) => specs.some((s) => s.id === id)), ...specs.map((s) => s.id).filter((id) => !prefs.order.includes(id))];
  const move = (id: string, delta: number) => {
    const i = order.indexOf(id);
    const j = i + delta;
    if (j < 0 || j >= order.length) return;
    const next = [...order];
    [next[i], next[j]] = [next[j]!, next[i]!];
    setColumns(table, (p) => ({ ...p, order: next }));
  };
  return (
    <Dialog
      title={t('columns.title')}
      onClose={close}
      footer={
        <>
          <button type="button" onClick={() => setColumns(table, () => ({ visibility: {}, sizing: {}, order: [] }))}>
            {t('columns.reset')}
          </button>
          <button type="button" className="primary" onClick={close}>
            {t('common.done')}
          </button>
        </>
      }
    >
      <ul className="columns-list">
        {order.map((id, i) => {
          const spec = specs.find((s) => s.id === id)!;
          const on = prefs.visibility[id] ?? spec.defaultVisible ?? true;
          return (
            <li key={id}>
              <label>
                <input type="checkbox" checked={on} onChange={() => setColumns(table, (p) => ({ ...p, visibility: { ...p.visibility, [id]: !on } }))} />
                <span>{spec.header === '#' ? t('fields.display_id') : spec.header}</span>
              </label>
              <span className="spacer" />
              <button type="button" className="icon" disabled={i === 0} onClick={() => move(id, -1)} aria-label={t('columns.up', { column: spec.header })}>
                ↑
              </button>
              <button type="button" className="icon" disabled={i === order.length - 1} onClick={() => move(id, 1)} aria-label={t('columns.down', { column: spec.header })}>
                ↓
              </button>
            </li>
          );
        })}
      </ul>
      <p className="muted">{t('columns.hint')}</p>
    </Dialog>
  );
}
