// The application, loaded by the entry (main.tsx) once the first page is asked.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './i18n';
import { App } from './App';
import { answeredWithin, openIncidentList } from './data/incidentList';
import { useSession } from './state/session';
import { applyTheme, useUi } from './state/ui';

applyTheme(useUi.getState().theme);
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(useUi.getState().theme));

// The session and the incident list's source before the first render: a key in hand signs in at
// once (no 'checking' pass), and the list's first page, asked by the entry, is read before React
// renders, so that the first render draws the rows with the shell (waiting a little at most: a
// slow answer is drawn when it comes, as before).
const FIRST_PAGE_WAIT_MS = 250;

async function render(): Promise<void> {
  // A key in hand signs in within a few microtasks; asking the other tabs takes longer, and the
  // shell shows meanwhile (its own start joins this one).
  const started = useSession.getState().start();
  await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 0))]);
  const source = useSession.getState().status === 'ready' ? openIncidentList() : null;
  if (source) await answeredWithin(source, FIRST_PAGE_WAIT_MS);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

void render();
