// The console's entry. It asks the incident list's first page at once (data/opening.ts: a small
// module, no component), then loads the application (start.tsx): the server reads the first rows
// while the browser parses, evaluates and renders the rest. While the application's code
// downloads, the number and date formats of the first rows are made (i18n/format.ts).
import { askFirstPageAhead } from './data/opening';
import { prepareFormats } from './i18n/format';
import { openingLang } from './i18n/lang';
import './styles.css';

void askFirstPageAhead().catch(() => {});
void import('./start');
setTimeout(() => prepareFormats(openingLang()), 0);
