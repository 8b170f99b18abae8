// Interface state: theme, the command palette, the open dialog, notices, and each table's
// columns (shown, widths, order), kept in localStorage.
import { create } from 'zustand';
import type { ExportSource, ExportTarget } from '../data/exportTypes';
import type { ChangeTarget } from './changes';

export type ThemePref = 'system' | 'light' | 'dark';
const THEME_KEY = 'radar-console.theme';
const COLUMNS_KEY = 'radar-console.columns';

export interface ColumnPrefs {
  visibility: Record<string, boolean>;
  sizing: Record<string, number>;
  order: string[];
}

export type Dialog =
  | { kind: 'status' | 'risk' | 'assign'; target: ChangeTarget }
  | { kind: 'instances' }
  | { kind: 'views' }
  | { kind: 'columns'; table: string }
  | { kind: 'import' }
  | { kind: 'exportCsv'; source: ExportSource; target: ExportTarget }
  | null;

export interface Notice {
  id: number;
  kind: 'info' | 'error' | 'success';
  text: string;
  /** An action offered with the notice (e.g. undo). */
  action?: { id: string; label: string };
}

function loadColumns(): Record<string, ColumnPrefs> {
  try {
    return JSON.parse(localStorage.getItem(COLUMNS_KEY) ?? '{}') as Record<string, ColumnPrefs>;
  } catch {
    return {};
  }
}

function storedTheme(): ThemePref {
  const v = localStorage.getItem(THEME_KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

export function applyTheme(pref: ThemePref): void {
  const dark = pref === 'dark' || (pref === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

interface UiState {
  theme: ThemePref;
  paletteOpen: boolean;
  dialog: Dialog;
  notices: Notice[];
  columns: Record<string, ColumnPrefs>;
  chartsOpen: boolean;
  /** What the view on screen exports besides the incident list (a resource list, a builder). */
  exportSource: ExportSource | null;
  setExportSource(s: ExportSource | null): void;
  /** Error notices belong to the page they were raised on. */
  clearErrors(): void;
  setTheme(t: ThemePref): void;
  setPalette(open: boolean): void;
  openDialog(d: Dialog): void;
  notify(kind: Notice['kind'], text: string, action?: Notice['action']): void;
  dismiss(id: number): void;
  setColumns(table: string, update: (p: ColumnPrefs) => ColumnPrefs): void;
  toggleCharts(): void;
}

let noticeId = 0;

export const useUi = create<UiState>((set, get) => ({
  theme: storedTheme(),
  paletteOpen: false,
  dialog: null,
  notices: [],
  columns: loadColumns(),
  chartsOpen: localStorage.getItem('radar-console.charts') !== 'closed',
  exportSource: null,
  setExportSource(exportSource) {
    set({ exportSource });
  },
  clearErrors() {
    if (get().notices.some((n) => n.kind === 'error')) set({ notices: get().notices.filter((n) => n.kind !== 'error') });
  },
  setTheme(theme) {
    if (theme === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, theme);
    applyTheme(theme);
    set({ theme });
  },
  setPalette(paletteOpen) {
    set({ paletteOpen });
  },
  openDialog(dialog) {
    set({ dialog });
  },
  notify(kind, text, action) {
    const id = ++noticeId;
    set({ notices: [...get().notices.slice(-3), { id, kind, text, action }] });
    if (kind !== 'error') setTimeout(() => get().dismiss(id), action ? 12000 : 6000);
  },
  dismiss(id) {
    set({ notices: get().notices.filter((n) => n.id !== id) });
  },
  setColumns(table, update) {
    const cur = get().columns[table] ?? { visibility: {}, sizing: {}, order: [] };
    const columns = { ...get().columns, [table]: update(cur) };
    localStorage.setItem(COLUMNS_KEY, JSON.stringify(columns));
    set({ columns });
  },
  toggleCharts() {
    const chartsOpen = !get().chartsOpen;
    localStorage.setItem('radar-console.charts', chartsOpen ? 'open' : 'closed');
    set({ chartsOpen });
  },
}));
