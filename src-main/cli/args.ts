// Flag parsing shared by the commands: clear messages, exit code 2 on misuse.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export const intFlag = (name: string, v: string | undefined, min: number, max: number): number | undefined => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${v}"`);
  return Number(v);
};

export function parse(args: string[], options: ParseArgsConfig['options'], positionals = false) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: positionals });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
