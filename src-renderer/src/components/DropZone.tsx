// Files dragged anywhere over the console window: an overlay says what dropping does, and the
// dropped files open the import dialog. Drags that carry no files (text, links) are left alone,
// and a file dropped outside the overlay never makes the window navigate to it.
import { useEffect, useState } from 'react';
import { useI18n } from '../i18n';
import { IMPORT_EXTENSIONS, useTransfers } from '../state/transfers';

const hasFiles = (e: DragEvent): boolean => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');

export function DropZone() {
  const { t } = useI18n();
  const [active, setActive] = useState(false);
  useEffect(() => {
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth++;
      setActive(true);
    };
    const over = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      setActive(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      // Leaving the window (no element under the pointer) ends it whatever the count says.
      if (depth === 0 || e.relatedTarget === null) {
        depth = 0;
        setActive(false);
      }
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setActive(false);
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length) useTransfers.getState().offerFiles(files);
    };
    const end = () => {
      depth = 0;
      setActive(false);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    window.addEventListener('dragend', end);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
      window.removeEventListener('dragend', end);
    };
  }, []);
  if (!active) return null;
  return (
    <div className="drop-overlay" data-testid="drop-overlay">
      <div className="drop-card" role="status">
        <span className="drop-icon" aria-hidden="true">
          ⇣
        </span>
        <strong>{t('import.dropTitle')}</strong>
        <span className="muted">{t('import.dropHint', { types: IMPORT_EXTENSIONS.join(', ') })}</span>
      </div>
    </div>
  );
}
