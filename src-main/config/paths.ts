// Where the console keeps its data when no --db is given: the user's data folder.
import os from 'node:os';
import path from 'node:path';

export const APP_DIR_NAME = 'radar-console';

export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.RADAR_DATA_DIR) return env.RADAR_DATA_DIR;
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_DIR_NAME);
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), APP_DIR_NAME);
}

export const defaultDbFile = (): string => path.join(userDataDir(), 'radar.sqlite');
