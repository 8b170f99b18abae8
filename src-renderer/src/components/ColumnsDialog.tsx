// Choosing, ordering and resetting a table's columns.
import { useI18n } from '../i18n';
import { currentQuery, useQuery, useTriage } from '../state/triage';
import { useUi, type ColumnPrefs } from '../state/ui';
import { columnsOf } from './DataTable';
import { Dialog } from './Dialog';

export function ColumnsDialog({ table }: { table: string }) {
  const { t } = useI18n();
  const stored = useUi((s) => s.columns[table]) ?? { visibility: {}, sizing: {}, order: [] };
  const setStored = useUi((s) => s.setColumns);
  // The incident list keeps its columns in the address too (a shared view shows the same ones).
  const inAddress = table === 'incidents';
  const fromAddress = useQuery().columns;
  const specs = columnsOf(table);
  const prefs: ColumnPrefs =
    inAddress && fromAddress
      ? { ...stored, order: fromAddress, visibility: Object.fromEntries(specs.map((s) => [s.id, fromAddress.includes(s.id)])) }
      : stored;
  const setColumns = (table: string, update: (p: ColumnPrefs) => ColumnPrefs) => {
    const next = update(prefs);
    setStored(table, () => next);
    if (!inAddress) return;
    const order = [...next.order.filter((id) => specs.some((s) => s.id === id)), ...specs.map((s) => s.id).filter((id) => !next.order.includes(id))];
    const visible = order.filter((id) => next.visibility[id] ?? specs.find((s) => s.id === id)?.defaultVisible ?? true);
    const reset = !next.order.length && !Object.keys(next.visibility).length;
    if (reset || currentQuery().columns || visible.length) useTriage.getState().setQuery((q) => ({ ...q, columns: reset ? null : visible }));
  };
  const close = () => useUi.getState().openDialog(null);
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
