// The window's place and size, remembered in the user data folder and restored on a display
// that still shows it.
import { screen, type BrowserWindow, type Rectangle } from 'electron';
import fs from 'node:fs';
import path from 'node:path';

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

const DEFAULT: WindowState = { width: 1280, height: 800, maximized: false };
const MIN = { width: 960, height: 600 };

function valid(v: unknown): v is WindowState {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  const int = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && Math.abs(x) < 100_000;
  return int(s.width) && int(s.height) && typeof s.maximized === 'boolean' && (s.x === undefined || int(s.x)) && (s.y === undefined || int(s.y));
}

/** Whether a good part of the rectangle lies on some display. */
function visible(r: Rectangle): boolean {
  return screen.getAllDisplays().some(({ workArea: a }) => {
    const w = Math.min(r.x + r.width, a.x + a.width) - Math.max(r.x, a.x);
    const h = Math.min(r.y + r.height, a.y + a.height) - Math.max(r.y, a.y);
    return w >= 100 && h >= 100;
  });
}

export function loadWindowState(dir: string): WindowState {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'window-state.json'), 'utf8')) as unknown;
    if (!valid(s)) return DEFAULT;
    const size = { width: Math.max(MIN.width, s.width), height: Math.max(MIN.height, s.height) };
    if (s.x === undefined || s.y === undefined || !visible({ x: s.x, y: s.y, ...size })) return { ...size, maximized: s.maximized };
    return { ...s, ...size };
  } catch {
    return DEFAULT;
  }
}

/** Keeps the file in step with the window (debounced), and writes it once more on close. */
export function trackWindowState(win: BrowserWindow, dir: string): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const save = () => {
    if (win.isDestroyed() || win.isMinimized()) return;
    const b = win.getNormalBounds();
    const state: WindowState = { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() };
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'window-state.json'), JSON.stringify(state));
    } catch {
      // an unwritable profile folder only loses the window's place
    }
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  for (const e of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(e as 'resize', later);
  win.on('close', () => {
    clearTimeout(timer);
    save();
  });
}
