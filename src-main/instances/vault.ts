// Remote instances' API keys: never in the database, never answered. Kept in a file only the
// owner can read, encrypted by the OS where it offers a way (Electron's safeStorage, passed in
// as a cipher by the desktop app).
import fs from 'node:fs';
import path from 'node:path';

export interface KeyCipher {
  /** A name recorded beside each value, e.g. `safeStorage`. */
  name: string;
  encrypt(plain: string): string;
  decrypt(stored: string): string;
}

interface VaultFile {
  version: 1;
  keys: Record<string, { cipher: string; value: string }>;
}

export class KeyVault {
  constructor(
    readonly file: string,
    /** Also used for the keys of snapshots' origins kept beside them. */
    readonly cipher?: KeyCipher,
  ) {}

  private read(): VaultFile {
    if (!this.file || !fs.existsSync(this.file)) return { version: 1, keys: {} };
    const parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as VaultFile;
    return { version: 1, keys: parsed.keys ?? {} };
  }

  private write(v: VaultFile): void {
    if (!this.file) return;
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(v, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }

  private memory = new Map<string, string>();

  get(id: string): string | undefined {
    if (!this.file) return this.memory.get(id);
    const entry = this.read().keys[id];
    if (!entry) return undefined;
    if (entry.cipher === 'plain') return entry.value;
    if (!this.cipher || this.cipher.name !== entry.cipher) throw new Error(`the key of instance ${id} is encrypted with ${entry.cipher}, which is not available here`);
    return this.cipher.decrypt(entry.value);
  }

  has(id: string): boolean {
    return this.file ? id in this.read().keys : this.memory.has(id);
  }

  set(id: string, key: string): void {
    if (!this.file) {
      this.memory.set(id, key);
      return;
    }
    const v = this.read();
    v.keys[id] = this.cipher ? { cipher: this.cipher.name, value: this.cipher.encrypt(key) } : { cipher: 'plain', value: key };
    this.write(v);
  }

  remove(id: string): void {
    if (!this.file) {
      this.memory.delete(id);
      return;
    }
    const v = this.read();
    if (!(id in v.keys)) return;
    delete v.keys[id];
    this.write(v);
  }
}

export const vaultFileFor = (dbFile: string): string =>
  dbFile === ':memory:' ? '' : path.join(path.dirname(path.resolve(dbFile)), `${path.basename(dbFile)}.instance-keys.json`);
