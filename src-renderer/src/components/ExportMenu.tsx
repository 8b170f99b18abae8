// "Export" on a list: JSON (the API's own shape), NDJSON, or CSV with a column chooser, of
// exactly the request the list shows, from the instance shown. Under "All instances" the menu
// offers each local instance's export; a remote instance is exported after a snapshot.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { ExportFormat } from '../../../src-shared/schemas/transfer';
import { setExportSource } from '../actions/registry';
import { exportTargets, isPaged, runExport, withoutPaging, type ExportSource, type ExportTarget } from '../data/exports';
import { useI18n } from '../i18n';
import { useInstances } from '../state/instances';
import { useUi } from '../state/ui';

const FORMATS: ExportFormat[] = ['json', 'ndjson', 'csv'];

function moveFocus(e: KeyboardEvent<HTMLElement>) {
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[role^="menuitem"]:not([disabled])')];
  const i = items.indexOf(document.activeElement as HTMLElement);
  const to = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? items.length - 1 : null;
  if (to === null || !items.length) return;
  e.preventDefault();
  items[(to + items.length) % items.length]!.focus();
}

export function ExportMenu({ source, disabledReason }: { source: ExportSource | null; disabledReason?: string }) {
  const { t } = useI18n();
  useInstances((s) => s.list);
  const selected = useInstances((s) => s.selected);
  const [open, setOpen] = useState(false);
  const [allMatches, setAllMatches] = useState(true);
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  useEffect(() => {
    setExportSource(source);
    return () => setExportSource(null);
  }, [source]);
  useEffect(() => {
    if (!open) return;
    wrap.current?.querySelector<HTMLElement>('[role^="menuitem"]:not([disabled])')?.focus();
    const down = (e: MouseEvent) => {
      if (wrap.current && !wrap.current.contains(e.target as Node)) setOpen(false);
    };
    const key = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener('mousedown', down);
    document.addEventListener('keydown', key, true);
    return () => {
      document.removeEventListener('mousedown', down);
      document.removeEventListener('keydown', key, true);
    };
  }, [open]);
  const targets = exportTargets();
  const paged = source ? isPaged(source) : false;
  const effective = source && paged && allMatches ? withoutPaging(source) : source;
  const choose = (format: ExportFormat, target: ExportTarget) => {
    if (!effective) return;
    setOpen(false);
    if (format === 'csv') useUi.getState().openDialog({ kind: 'exportCsv', source: effective, target });
    else runExport(effective, format, target);
  };
  const label = (f: ExportFormat) => t(`exports.formats.${f}`);
  const many = selected === 'all';
  const anyRemote = targets.some((x) => !x.exportable);
  const hint = !source
    ? disabledReason
    : targets.every((x) => !x.exportable)
      ? t('exports.remoteHint')
      : many
        ? `${t('exports.perInstance')}${anyRemote ? ` ${t('exports.remoteHint')}` : ''}`
        : null;
  return (
    <div className="popover-wrap export-menu" ref={wrap}>
      <button
        ref={button}
        type="button"
        className="ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen(!open)}
        title={source ? t('exports.buttonHint') : disabledReason}
      >
        {t('exports.button')}
        <span className="caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {open && (
        <div id={menuId} className="popover align-right export-popover" role="menu" aria-label={t('exports.menu')} onKeyDown={moveFocus}>
          {hint && <p className="menu-hint muted">{hint}</p>}
          {paged && (
            <button type="button" role="menuitemcheckbox" aria-checked={allMatches} className="menu-check" onClick={() => setAllMatches(!allMatches)}>
              <span className="check-mark" aria-hidden="true">
                {allMatches ? '✓' : ''}
              </span>
              {t('exports.allMatches')}
            </button>
          )}
          {targets.map((target) =>
            many ? (
              <div key={target.id} role="group" aria-label={target.name} className="menu-group">
                <div className="menu-group-head" aria-hidden="true">
                  <span>{target.name}</span>
                  {!target.exportable && (
                    <span className="tag" title={t('exports.remoteHint')}>
                      {t('instances.kind.remote')}
                    </span>
                  )}
                </div>
                <div className="menu-formats">
                  {FORMATS.map((f) => (
                    <button
                      key={f}
                      type="button"
                      role="menuitem"
                      disabled={!source || !target.exportable}
                      aria-label={t('exports.itemFrom', { format: label(f), instance: target.name })}
                      onClick={() => choose(f, target)}
                    >
                      {t(`exports.short.${f}`)}
                    </button>
                  ))}
                </div>
              </div>
            ) : (
              FORMATS.map((f) => (
                <button key={f} type="button" role="menuitem" className="menu-item" disabled={!source || !target.exportable} onClick={() => choose(f, target)}>
                  <span>{label(f)}</span>
                  <span className="muted small">{t(`exports.about.${f}`)}</span>
                </button>
              ))
            ),
          )}
        </div>
      )}
    </div>
  );
}
