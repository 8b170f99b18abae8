// "Changes": what was changed offline in a snapshot instance and waits for its platform. The
// entries (record, field, before → after, state), push and pull with their progress, a preview
// of what a push would send, and the conflict resolver.
import { useCallback, useEffect, useState } from 'react';
import type { OutboxEntry, SyncStatus } from '../../../../src-shared/schemas/sync';
import { isAbort } from '../../api/client';
import { Dialog } from '../../components/Dialog';
import { cancelRun, discardEntries, dryRun, startPull, startPush, syncEntries, syncStatus } from '../../api/sync';
import { useI18n } from '../../i18n';
import { formatDateTime, formatNumber } from '../../i18n/format';
import { serverText } from '../../i18n/serverText';
import { useInstances } from '../../state/instances';
import { checkAuth, useSession } from '../../state/session';
import { useSync, watchSync } from '../../state/sync';
import { useUi } from '../../state/ui';
import { ConflictResolver } from './ConflictResolver';
import { showValue } from './values';
import './changes.css';

const STATES = ['all', 'pending', 'conflict', 'failed'] as const;
type StateFilter = (typeof STATES)[number];
const PAGE = 200;

/** The snapshot shown: the one picked here, else the one selected in the switcher, else the first. */
function useShownSnapshot(picked: string | null): string | null {
  const selected = useInstances((s) => s.selected);
  const mainId = useInstances((s) => s.mainId);
  const snapshots = useSync((s) => s.snapshots);
  const sel = selected === 'main' ? mainId : selected;
  if (picked && snapshots[picked]) return picked;
  if (sel && snapshots[sel]) return sel;
  return Object.keys(snapshots)[0] ?? null;
}

export function ChangesView() {
  const { t, lang } = useI18n();
  const api = useSession((s) => s.api);
  const snapshots = useSync((s) => s.snapshots);
  const loaded = useSync((s) => s.loaded);
  const [picked, setPicked] = useState<string | null>(null);
  const instance = useShownSnapshot(picked);
  const [status, setStatus] = useState<SyncStatus | null>(null);
  const [filter, setFilter] = useState<StateFilter>('all');
  const [entries, setEntries] = useState<{ items: OutboxEntry[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [resolving, setResolving] = useState<OutboxEntry | null>(null);
  const [preview, setPreview] = useState<{ method: string; path: string; body?: unknown }[] | null>(null);
  const notify = useUi((s) => s.notify);

  useEffect(() => watchSync(), []);

  const reload = useCallback(async () => {
    if (!api || !instance) return;
    try {
      const [st, list] = await Promise.all([syncStatus(api, instance), syncEntries(api, instance, { state: filter === 'all' ? undefined : filter, limit: PAGE })]);
      setStatus(st);
      setEntries(list);
      setError(null);
    } catch (e) {
      if (isAbort(e)) return;
      checkAuth(e);
      setError(e instanceof Error ? e.message : String(e));
    }
  }, [api, instance, filter]);

  useEffect(() => {
    void reload();
  }, [reload]);

  // While a push or pull runs: its progress, then the entries and counts once it has finished.
  const running = status?.running ?? null;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      void reload().then(() => useSync.getState().load());
    }, 400);
    return () => clearInterval(timer);
  }, [running, reload]);

  const lastFinished = status?.last?.finished_at;
  useEffect(() => {
    if (lastFinished) void useSync.getState().load();
  }, [lastFinished]);

  if (!loaded) return <p className="muted pad">{t('states.loading')}</p>;
  if (!instance) {
    return (
      <section className="changes pad" aria-labelledby="changes-title">
        <h1 id="changes-title">{t('sync.title')}</h1>
        <p className="muted">{t('sync.noSnapshots')}</p>
      </section>
    );
  }

  const run = async (what: 'push' | 'pull') => {
    if (!api) return;
    try {
      setStatus(what === 'push' ? await startPush(api, instance) : await startPull(api, instance));
    } catch (e) {
      checkAuth(e);
      notify('error', e instanceof Error ? e.message : String(e));
    }
  };
  const showPreview = async () => {
    if (!api) return;
    try {
      const dry = await dryRun(api, instance);
      setPreview(dry.would_send);
    } catch (e) {
      checkAuth(e);
      notify('error', e instanceof Error ? e.message : String(e));
    }
  };
  const discard = async (e: OutboxEntry) => {
    if (!api) return;
    if (!window.confirm(t('sync.discardConfirm', { field: e.field || t(`sync.op.${e.op}`) }))) return;
    try {
      await discardEntries(api, instance, { entries: [e.seq] });
      await reload();
      void useSync.getState().load();
    } catch (err) {
      checkAuth(err);
      notify('error', err instanceof Error ? err.message : String(err));
    }
  };

  const c = status?.counts;
  const last = status?.last;
  const lastText = !last
    ? null
    : last.error
      ? t('sync.lastStopped', { kind: t(`sync.kind.${last.kind}`), error: last.error })
      : last.push
        ? t('sync.lastPush', { pushed: formatNumber(lang, last.push.pushed), conflicts: formatNumber(lang, last.push.conflicts), failed: formatNumber(lang, last.push.failed) })
        : last.pull
          ? t('sync.lastPull', { received: formatNumber(lang, last.pull.received), conflicts: formatNumber(lang, last.pull.conflicts) })
          : null;

  return (
    <section className="changes pad" aria-labelledby="changes-title" data-testid="changes-view">
      <header className="changes-head">
        <h1 id="changes-title">{t('sync.title')}</h1>
        {Object.keys(snapshots).length > 1 && (
          <select aria-label={t('sync.instance')} value={instance} onChange={(e) => setPicked(e.target.value)}>
            {Object.values(snapshots).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        )}
        {status && (
          <p className="muted changes-origin">
            {t('sync.origin', {
              name: status.instance.name,
              url: status.origin.url,
              at: formatDateTime(lang, status.origin.snapshot_at),
              pulled: status.origin.pulled_at ? formatDateTime(lang, status.origin.pulled_at) : t('sync.never'),
              pushed: status.origin.pushed_at ? formatDateTime(lang, status.origin.pushed_at) : t('sync.never'),
            })}
          </p>
        )}
      </header>
      {c && (
        <div className="changes-bar">
          <span className="changes-counts" data-testid="changes-counts">
            <strong>{t('sync.waiting', { count: c.total, n: formatNumber(lang, c.total) })}</strong>
            {c.conflict > 0 && <span className="badge is-conflict">{t('sync.conflicts', { count: c.conflict, n: formatNumber(lang, c.conflict) })}</span>}
            {c.failed > 0 && <span className="badge is-failed">{t('sync.failed', { count: c.failed, n: formatNumber(lang, c.failed) })}</span>}
            {c.sending > 0 && <span className="badge">{t('sync.unconfirmed', { count: c.sending, n: formatNumber(lang, c.sending) })}</span>}
          </span>
          <span className="spacer" />
          <button type="button" onClick={() => void showPreview()} disabled={!!running || !c.total}>
            {t('sync.preview')}
          </button>
          <button type="button" onClick={() => void run('pull')} disabled={!!running}>
            {t('sync.pull')}
          </button>
          <button type="button" className="primary" onClick={() => void run('push')} disabled={!!running || !(c.pending + c.sending)}>
            {t('sync.push')}
          </button>
        </div>
      )}
      {running && (
        <div className="changes-progress" role="status" data-testid="sync-progress">
          <span>{t(`sync.running.${running.kind}`, { phase: running.phase, done: formatNumber(lang, running.done), total: running.total === null ? '…' : formatNumber(lang, running.total) })}</span>
          <progress max={running.total ?? 1} value={running.total ? running.done : undefined} aria-label={t(`sync.kind.${running.kind}`)} />
          <button type="button" className="link" onClick={() => api && void cancelRun(api, instance).then(setStatus)}>
            {t('common.cancel')}
          </button>
        </div>
      )}
      {!running && lastText && (
        <p className={`changes-last${last?.error ? ' is-error' : ''}`} role="status" data-testid="sync-last">
          {lastText}
        </p>
      )}
      {!running && last?.push && last.push.unlinked > 0 && (
        <div className="changes-unlinked" role="note" data-testid="sync-unlinked">
          <p>{t('sync.unlinked', { count: last.push.unlinked, n: formatNumber(lang, last.push.unlinked) })}</p>
          {last.push.notes.length > 0 && (
            <ul>
              {last.push.notes.map((note) => (
                <li key={note}>{serverText(lang, note)}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="changes-tabs" role="tablist" aria-label={t('sync.filter')}>
        {STATES.map((s) => (
          <button key={s} type="button" role="tab" aria-selected={filter === s} className={filter === s ? 'is-on' : ''} onClick={() => setFilter(s)}>
            {t(`sync.state.${s}`)}
          </button>
        ))}
      </div>
      {entries && entries.items.length === 0 ? (
        <p className="muted">{t('sync.empty')}</p>
      ) : (
        <table className="changes-table" data-testid="changes-table">
          <thead>
            <tr>
              <th>{t('sync.col.record')}</th>
              <th>{t('sync.col.field')}</th>
              <th>{t('sync.col.change')}</th>
              <th>{t('sync.col.state')}</th>
              <th>{t('sync.col.when')}</th>
              <th>
                <span className="sr-only">{t('sync.col.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries?.items.map((e) => (
              <tr key={e.seq} data-state={e.state} data-seq={e.seq}>
                <td>
                  <span className="changes-label">{e.label ?? e.record_id}</span>
                  <span className="muted small"> {t(`sync.resource.${e.resource}`, { defaultValue: e.resource })}</span>
                </td>
                <td>{e.field ? t(`fields.${e.field}`, { defaultValue: e.field }) : t(`sync.op.${e.op}`)}</td>
                <td className="changes-values">
                  {e.op === 'update' ? (
                    <>
                      <span className="was">{showValue(e.field, e.before, t)}</span>
                      <span aria-hidden="true"> → </span>
                      <span className="now">{showValue(e.field, e.after, t)}</span>
                    </>
                  ) : (
                    <span className="muted">{t(`sync.opText.${e.op}`)}</span>
                  )}
                  {e.state === 'failed' && e.error && <div className="error small">{e.error === 'deleted on the platform' ? t('sync.deletedThere') : e.error}</div>}
                </td>
                <td>
                  <span className={`badge sync-state is-${e.state}`}>{t(`sync.state.${e.state}`)}</span>
                  {e.resolution === 'mine' && <span className="muted small"> {t('sync.keptMine')}</span>}
                </td>
                <td className="muted small">{formatDateTime(lang, e.changed_at)}</td>
                <td className="changes-actions">
                  {e.state === 'conflict' && (
                    <button type="button" onClick={() => setResolving(e)}>
                      {t('sync.resolve')}
                    </button>
                  )}
                  <button type="button" className="link" onClick={() => void discard(e)} disabled={!!running}>
                    {t('sync.discard')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {entries && entries.total > entries.items.length && <p className="muted small">{t('sync.more', { n: formatNumber(lang, entries.total - entries.items.length) })}</p>}
      {resolving && (
        <ConflictResolver
          instance={instance}
          entry={resolving}
          onClose={(done) => {
            setResolving(null);
            if (done) {
              void reload();
              void useSync.getState().load();
            }
          }}
        />
      )}
      {preview && <PreviewDialog requests={preview} onClose={() => setPreview(null)} />}
    </section>
  );
}

function PreviewDialog({ requests, onClose }: { requests: { method: string; path: string; body?: unknown }[]; onClose(): void }) {
  const { t } = useI18n();
  return (
    <Dialog
      title={t('sync.previewTitle', { count: requests.length })}
      onClose={onClose}
      wide
      footer={
        <button type="button" onClick={onClose}>
          {t('common.close')}
        </button>
      }
    >
      <p className="muted">{t('sync.previewNote')}</p>
      <pre className="changes-preview" data-testid="sync-preview">
        {requests.map((r) => `${r.method} ${r.path}${r.body ? ` ${JSON.stringify(r.body)}` : ''}`).join('\n')}
      </pre>
    </Dialog>
  );
}
