// Actions over state, the way Excalidraw's action registry works: each action reads a snapshot
// of the stores (`AppState`), says whether it applies (`predicate`) and which keys run it
// (`keys`, or `keyTest` for anything else), and does its work (`perform`). The toolbar, the row
// menu, the keyboard, the command palette and the desktop menu all run the same declarations.
import type { ExportSource } from '../data/exportTypes';
import type { RowSource } from '../data/source';
import type { Route } from '../router';
import type { RowRef, Scope } from '../state/triage';
import type { IncidentQuery } from '../views/incidents/query';

export interface AppState {
  route: Route;
  signedIn: boolean;
  /** A dialog or the palette is open. */
  dialogOpen: boolean;
  /** The instance shown: 'main', an instance id, or 'all'. */
  view: string;
  query: IncidentQuery;
  selection: ReadonlyMap<string, RowRef>;
  /** The whole query selected ("all N matching"), while the list shows it. */
  scope: Scope | null;
  focus: number;
  detail: RowRef | null;
  /** The incident list on screen (derived from the query; null elsewhere). */
  source: RowSource | null;
  /** A change is being sent. */
  busy: boolean;
  /** A change is held (not yet sent). */
  pending: boolean;
  /** Undo applies: a held change, or a change sent that can be reverted. */
  canUndo: boolean;
  /** What the view on screen exports. */
  exportSource: ExportSource | null;
}

export type ActionGroup = 'incidents' | 'view' | 'go' | 'app';

export interface Action {
  id: string;
  /** i18n key of the label. */
  label: string;
  group: ActionGroup;
  /** Keys that run it: 'j', 'Shift+X', 'Mod+K' (Mod = Ctrl, or ⌘ on macOS). */
  keys?: readonly string[];
  /** Other keys that run it (tested after `keys`). */
  keyTest?(e: KeyboardEvent, s: AppState): boolean;
  /** Runs even while typing in a field. */
  global?: boolean;
  predicate(s: AppState): boolean;
  /** A toggle: whether it is on now (its button shows it pressed). */
  pressed?(): boolean;
  perform(s: AppState): void | Promise<void>;
}
