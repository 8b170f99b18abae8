// "Export" on a list: JSON (the API's own shape), NDJSON, or CSV with a column chooser, of
// exactly the request the list shows, from the instance shown. Under "All instances" the menu
// offers each local instance's export; a remote instance is exported after a snapshot.
import { useEffect, useState } from 'react';
import type { ExportFormat } from '../../../src-shared/schemas/transfer';
import { appState } from '../actions/registry';
import { exportTargets, isPaged, runExport, withoutPaging, type ExportSource, type ExportTarget } from '../data/exports';
import { useI18n } from '../i18n';
import { useInstances } from '../state/instances';
import { useQuery } from '../state/triage';
import { useUi } from '../state/ui';
import { DM } from './Menu';
import { useAfterPaint } from './afterPaint';
import { displayName } from '../lib/instanceName';

const FORMATS: ExportFormat[] = ['json', 'ndjson', 'csv'];

/** `incidents`: the incident list's export (derived from its query); else `source`, which the
 * view on screen exports (the palette's and the desktop menu's export actions use it too). */
export function ExportMenu({ source: given, disabledReason, incidents }: { source: ExportSource | null; disabledReason?: string; incidents?: boolean }) {
  const { t } = useI18n();
  useInstances((s) => s.list);
  const q = useQuery();
  const selected = useInstances((s) => s.selected);
  const [allMatches, setAllMatches] = useState(true);
  const late = useAfterPaint();
  useEffect(() => {
    if (incidents) return;
    useUi.getState().setExportSource(given);
    return () => useUi.getState().setExportSource(null);
  }, [given, incidents]);
  void q;
  const source = incidents ? appState().exportSource : given;
  const targets = exportTargets();
  const paged = source ? isPaged(source) : false;
  const effective = source && paged && allMatches ? withoutPaging(source) : source;
  const choose = (format: ExportFormat, target: ExportTarget) => {
    if (!effective) return;
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
  const face = (
    <>
      {t('exports.button')}
      <span className="caret" aria-hidden="true">
        ▾
      </span>
    </>
  );
  if (!late.ready)
    return (
      <button className="ghost export-button" title={source ? t('exports.buttonHint') : disabledReason} aria-haspopup="menu" {...late.plain}>
        {face}
      </button>
    );
  return (
    <DM.Root defaultOpen={late.openedEarly}>
      <DM.Trigger ref={late.triggerRef} type="button" className="ghost export-button" title={source ? t('exports.buttonHint') : disabledReason}>
        {face}
      </DM.Trigger>
      <DM.Portal>
        <DM.Content className="menu export-popover" aria-label={t('exports.menu')} aria-labelledby={undefined} align="end" sideOffset={4} collisionPadding={8} loop>
          {hint && <p className="menu-hint muted">{hint}</p>}
          {paged && (
            <DM.CheckboxItem
              className="menu-item menu-check"
              checked={allMatches}
              onSelect={(e) => {
                e.preventDefault();
                setAllMatches(!allMatches);
              }}
            >
              <span className="check-mark" aria-hidden="true">
                {allMatches ? '✓' : ''}
              </span>
              {t('exports.allMatches')}
            </DM.CheckboxItem>
          )}
          {targets.map((target) =>
            many ? (
              <DM.Group key={target.id} aria-label={displayName(target, t)} className="menu-group">
                <DM.Label className="menu-group-head">
                  <span>{displayName(target, t)}</span>
                  {!target.exportable && (
                    <span className="tag" title={t('exports.remoteHint')}>
                      {t('instances.kind.remote')}
                    </span>
                  )}
                </DM.Label>
                <div className="menu-formats">
                  {FORMATS.map((f) => (
                    <DM.Item
                      key={f}
                      className="menu-item"
                      disabled={!source || !target.exportable}
                      aria-label={t('exports.itemFrom', { format: label(f), instance: target.name })}
                      onSelect={() => choose(f, target)}
                    >
                      {t(`exports.short.${f}`)}
                    </DM.Item>
                  ))}
                </div>
              </DM.Group>
            ) : (
              FORMATS.map((f) => (
                <DM.Item key={f} className="menu-item" disabled={!source || !target.exportable} onSelect={() => choose(f, target)}>
                  <span>{label(f)}</span>
                  <span className="muted small">{t(`exports.about.${f}`)}</span>
                </DM.Item>
              ))
            ),
          )}
        </DM.Content>
      </DM.Portal>
    </DM.Root>
  );
}
