// The incident's custom fields, by title, each editable by its type (string, integer, float,
// date, boolean, json), saved through custom_field_values/update.
import { useEffect, useState } from 'react';
import { emptySearch } from '../../../../../src-shared/schemas/search';
import { search, updateRecord, type Rec } from '../../../api/radar';
import { failureText } from '../../../data/source';
import { useI18n } from '../../../i18n';
import { datePattern, formatDate, parseDate } from '../../../i18n/format';
import { targetOf } from '../../../state/instances';
import { useSession } from '../../../state/session';

const COLUMN: Record<string, string> = {
  string: 'string_value',
  integer: 'integer_value',
  int: 'integer_value',
  float: 'float_value',
  number: 'float_value',
  date: 'date_value',
  boolean: 'boolean_value',
  bool: 'boolean_value',
  json: 'json_value',
};

function Value({ rec, instance, onSaved }: { rec: Rec; instance: string; onSaved(): void }) {
  const { t, lang } = useI18n();
  const api = useSession((s) => s.api);
  const field = (rec.custom_field ?? {}) as Rec;
  const type = String(field.field_type ?? 'string');
  const col = COLUMN[type] ?? 'string_value';
  const typeName = t(`customFieldTypes.${type}`, { defaultValue: type });
  const initial = rec[col];
  const shown = initial === null || initial === undefined ? '' : typeof initial === 'object' ? JSON.stringify(initial) : col === 'date_value' ? formatDate(lang, String(initial)) : String(initial);
  const [text, setText] = useState(shown);
  const [error, setError] = useState<string | null>(null);
  const parse = (): { ok: true; value: unknown } | { ok: false } => {
    if (text.trim() === '') return { ok: true, value: null };
    if (col === 'integer_value') return /^-?\d+$/.test(text.trim()) ? { ok: true, value: Number(text) } : { ok: false };
    if (col === 'float_value') return Number.isFinite(Number(text.replace(',', '.'))) ? { ok: true, value: Number(text.replace(',', '.')) } : { ok: false };
    if (col === 'date_value') {
      const day = parseDate(lang, text);
      return day ? { ok: true, value: day } : { ok: false };
    }
    if (col === 'json_value') {
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        return { ok: false };
      }
    }
    return { ok: true, value: text };
  };
  const save = async (value: unknown) => {
    if (!api) return;
    setError(null);
    try {
      await updateRecord(api, targetOf(instance), 'custom_field_values', {
        id: rec.id,
        custom_field_id: rec.custom_field_id as string,
        service_asset_finding_id: rec.service_asset_finding_id as string,
        created_at: rec.created_at as string,
        updated_at: rec.updated_at as string,
        [col]: value,
      });
      onSaved();
    } catch (e) {
      setError(failureText(e));
    }
  };
  const label = String(field.title ?? field.field_key ?? rec.custom_field_id);
  const parsed = parse();
  return (
    <div className="cf">
      <label className="field">
        <span>
          {label} <span className="muted small">· {typeName}</span>
        </span>
        {col === 'boolean_value' ? (
          <input type="checkbox" checked={initial === true} onChange={(e) => void save(e.target.checked)} aria-label={label} />
        ) : (
          <input
            type="text"
            inputMode={col === 'integer_value' || col === 'float_value' ? 'decimal' : col === 'date_value' ? 'numeric' : undefined}
            placeholder={col === 'date_value' ? datePattern(lang) : undefined}
            value={text}
            aria-invalid={!parsed.ok}
            aria-label={label}
            onChange={(e) => setText(e.target.value)}
            onBlur={() => {
              if (text !== shown && parsed.ok) void save(parsed.value);
            }}
          />
        )}
      </label>
      {!parsed.ok && <span className="error small">{t('customFields.invalid', { type: typeName })}</span>}
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

/** An incident's custom field values on an instance, each with its field (its title and type). */
export async function customFieldValuesOf(api: Parameters<typeof search>[0], instance: string, incidentId: string, signal: AbortSignal): Promise<Rec[]> {
  const page = await search(
    api,
    targetOf(instance),
    'custom_field_values',
    { ...emptySearch(200), filters: [{ field: 'service_asset_finding_id', filter_type: 'equal', value: incidentId }], relations: ['custom_field'] },
    signal,
  );
  return page.items;
}

export function CustomFields({ instance, incidentId, seq }: { instance: string; incidentId: string; seq: number }) {
  const { t } = useI18n();
  const api = useSession((s) => s.api);
  const [values, setValues] = useState<Rec[] | null>(null);
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!api) return;
    const ctl = new AbortController();
    customFieldValuesOf(api, instance, incidentId, ctl.signal).then(setValues, () => setValues([]));
    return () => ctl.abort();
  }, [api, instance, incidentId, seq, n]);
  if (!values) return <p className="muted">{t('states.loading')}</p>;
  if (!values.length) return <p className="muted">{t('customFields.none')}</p>;
  const sorted = [...values].sort((a, b) => String((a.custom_field as Rec | null)?.title ?? '').localeCompare(String((b.custom_field as Rec | null)?.title ?? '')));
  return (
    <div className="custom-fields">
      {sorted.map((v) => (
        <Value key={`${v.id}|${String(v.updated_at)}`} rec={v} instance={instance} onSaved={() => setN((x) => x + 1)} />
      ))}
    </div>
  );
}
