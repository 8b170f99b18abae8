// The console's entry. It asks the incident list's first page at once (data/opening.ts: a small
// module, no component), then loads the application (start.tsx): the server reads the first rows
// while the browser parses, evaluates and renders the rest.
import { askFirstPageAhead } from './data/opening';
import './styles.css';

void askFirstPageAhead().catch(() => {});
void import('./start');
