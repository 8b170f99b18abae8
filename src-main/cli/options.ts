// Flag value parsers and checks shared by the commands. A parser throws commander's
// InvalidArgumentError, which commander reports as a usage error naming the flag.
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { CSV_DELIMITERS } from '../../src-shared/choices';
import { isUuid } from '../../src-shared/ids';
import { defaultDbFile } from '../config/paths';
import { CliError, UsageError } from './errors';

/** An integer flag within [min, max]. */
export const intIn =
  (min: number, max: number) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`It must be an integer from ${min} to ${max}.`);
    return Number(value);
  };

export const uuidArg = (value: string): string => {
  if (!isUuid(value)) throw new InvalidArgumentError('It must be a uuid.');
  return value.toLowerCase();
};

/** The `--db` flag's help text: the default is the user's data folder. */
export const DB_HELP = `database file (default: ${defaultDbFile()})`;

/** The database a command works on: --db, else the default one. */
export const dbFileOf = (db: string | undefined): string => path.resolve(db ?? defaultDbFile());

/**
 * A database the command reads: it must exist. Commands that only read never create one, so a
 * typo in --db is reported instead of leaving a new empty database behind.
 */
export function existingDb(db: string | undefined, flag = '--db'): string {
  const file = dbFileOf(db);
  if (!fs.existsSync(file)) {
    throw new CliError(`the database ${file} does not exist (check ${flag}; \`radar-console serve --db FILE\` or \`radar-console import --db FILE ...\` creates one)`);
  }
  return file;
}

/** The text of a key file, trimmed; a usage error naming the flag when it cannot be read. */
export function readKeyFile(file: string, flag: string): string {
  let key: string;
  try {
    key = fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new UsageError(`${flag} ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  if (!key) throw new UsageError(`${flag} ${file} is empty`);
  return key;
}

/** A CSV delimiter flag: , ; or tab (also written \\t). */
export const delimiterOf = (value: string): string => {
  const d = value === 'tab' || value === '\\t' ? '\t' : value;
  if (!(CSV_DELIMITERS as readonly string[]).includes(d)) throw new UsageError('--delimiter must be , ; or tab');
  return d;
};
