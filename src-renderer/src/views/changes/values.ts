// A field's value as the Changes view shows it: statuses translated, empty as a dash, records
// and lists as JSON.
import type { TFunction } from 'i18next';

export function showValue(field: string, v: unknown, t: TFunction): string {
  if (v === null || v === undefined || v === '') return '—';
  if (field === 'status' && typeof v === 'string') return t(`status.${v}`, { defaultValue: v });
  if (typeof v === 'boolean') return v ? t('common.yes') : t('common.no');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
