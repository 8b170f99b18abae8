// A date typed and shown in the console's one date format for its language (31/10/2026,
// 31.10.2026), whatever the browser's own locale, with the browser's calendar to pick from.
// The value is a calendar day, 'YYYY-MM-DD' ('' for none); it changes when the typed date is
// complete and valid (on Enter or leaving the field) or a day is picked.
import { useRef, useState } from 'react';
import { useI18n } from '../i18n';
import { datePattern, formatDate, parseDate } from '../i18n/format';

export function DateInput({ value, onChange, label, title }: { value: string; onChange(day: string): void; label: string; title?: string }) {
  const { t, lang } = useI18n();
  const [typing, setTyping] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const shown = typing ?? formatDate(lang, value);
  const parsed = shown.trim() === '' ? '' : parseDate(lang, shown);
  const commit = () => {
    if (typing === null || parsed === null) return;
    setTyping(null);
    if (parsed !== value) onChange(parsed);
  };
  return (
    <span className="date-input">
      <input
        type="text"
        inputMode="numeric"
        aria-label={label}
        placeholder={datePattern(lang)}
        value={shown}
        title={title}
        aria-invalid={parsed === null}
        size={11}
        onChange={(e) => setTyping(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit();
        }}
      />
      <button type="button" className="icon date-pick" aria-label={t('dates.pick', { field: label })} title={t('dates.pick', { field: label })} onClick={() => picker.current?.showPicker?.()}>
        <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
          <rect x="2" y="3" width="12" height="11" rx="1.5" fill="none" stroke="currentColor" />
          <path d="M2 6.5h12M5 1.5v3M11 1.5v3" stroke="currentColor" />
        </svg>
      </button>
      <input
        ref={picker}
        type="date"
        className="date-native"
        tabIndex={-1}
        aria-hidden="true"
        value={value}
        onChange={(e) => {
          setTyping(null);
          onChange(e.target.value);
        }}
      />
    </span>
  );
}
