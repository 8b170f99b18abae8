// The server's secrets (API key, token signing secret), kept beside the database in a file
// only its owner can read. Generated on first start; never logged.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Secrets {
  apiKey: string;
  jwtSecret: string;
}

export const secretsFileFor = (dbFile: string): string =>
  dbFile === ':memory:' ? '' : path.join(path.dirname(path.resolve(dbFile)), `${path.basename(dbFile)}.secrets.json`);

const generate = (): Secrets => ({
  apiKey: crypto.randomBytes(24).toString('base64url'),
  jwtSecret: crypto.randomBytes(32).toString('base64url'),
});

/** Reads the secrets file, creating it (mode 0600) with fresh values when missing or partial. */
export function loadSecrets(dbFile: string): Secrets {
  const file = secretsFileFor(dbFile);
  if (!file) return generate();
  let current: Partial<Secrets> = {};
  if (fs.existsSync(file)) {
    try {
      current = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Secrets>;
    } catch {
      throw new Error(`cannot read ${file}: not valid JSON (remove it to generate new secrets)`);
    }
  }
  const fresh = generate();
  const secrets: Secrets = {
    apiKey: typeof current.apiKey === 'string' && current.apiKey ? current.apiKey : fresh.apiKey,
    jwtSecret: typeof current.jwtSecret === 'string' && current.jwtSecret ? current.jwtSecret : fresh.jwtSecret,
  };
  if (secrets.apiKey !== current.apiKey || secrets.jwtSecret !== current.jwtSecret) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, file);
  }
  try {
    fs.chmodSync(file, 0o600);
  } catch {
    // not supported on every file system; the file was created 0600
  }
  return secrets;
}
