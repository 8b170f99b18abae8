// The command line's structure: one commander program, one subcommand per file in this folder.
// To add a subcommand, write `<name>.ts` exporting a factory that returns its Command (flags,
// arguments, help text, action) and add the factory to COMMANDS below; help, usage errors and
// exit codes then work the same as for every other command.
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { apiCommand } from './api';
import { complianceCommand } from './compliance';
import { CliError, EXIT, UsageError } from './errors';
import { exportCommand } from './export';
import { importCommand } from './import';
import { instanceCommand } from './instance';
import { serveCommand } from './serve';
import { snapshotCommand } from './snapshot';
import { syncCommand } from './sync';
import { tokenCommand } from './token';

/** Every subcommand, in the order the help lists them. */
const COMMANDS: (() => CommandUnknownOpts)[] = [serveCommand, tokenCommand, apiCommand, instanceCommand, importCommand, exportCommand, snapshotCommand, syncCommand, complianceCommand];

const FOOTER = `
Every command has its own help: radar-console <command> --help.

Exit codes: 0 done; 1 refused or failed (a missing database, a data conflict, a refused
import, an HTTP error answered to \`api\`); 2 usage error (unknown command or flag, bad flag
value); 130 cancelled (Ctrl-C).

Environment: RADAR_API_KEY (the API key for serve and api), RADAR_DATA_DIR (the folder of the
default database).`;

/** The package's version, from the package.json above this file (source tree or built package). */
function packageVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'radar-console' && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}

const fullName = (cmd: CommandUnknownOpts): string => {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/** Settings every command shares: errors through exitOverride, its usage line after a usage error. */
function configure(cmd: CommandUnknownOpts, write: { out: (s: string) => void; err: (s: string) => void }): void {
  cmd
    .exitOverride()
    .configureOutput({
      writeOut: write.out,
      writeErr: write.err,
      outputError: (text, w) => w(`radar-console: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError(`Usage: ${fullName(cmd)} ${cmd.usage()}\nRun \`${fullName(cmd)} --help\` for ${cmd.parent ? 'its flags' : 'the commands'}.`);
  for (const sub of cmd.commands) configure(sub as CommandUnknownOpts, write);
}

export function buildProgram(write = { out: (s: string) => void process.stdout.write(s), err: (s: string) => void process.stderr.write(s) }): CommandUnknownOpts {
  const program = new Command('radar-console')
    .description('The local Radar platform server, its data and its instances, from the command line.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print this help')
    .addHelpText('after', FOOTER) as unknown as CommandUnknownOpts;
  for (const make of COMMANDS) program.addCommand(make());
  configure(program, write);
  return program;
}

/** Runs the command line; resolves with the exit code once the command is done (serve: once it is stopped). */
export async function main(argv: string[], write?: Parameters<typeof buildProgram>[0]): Promise<number> {
  const program = buildProgram(write);
  const err = write?.err ?? ((s: string) => void process.stderr.write(s));
  let current: CommandUnknownOpts = program;
  program.hook('preAction', (_, action) => {
    current = action as CommandUnknownOpts;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof UsageError) {
      try {
        current.error(e.message, { exitCode: EXIT.usage, code: 'radar.usage' });
      } catch {
        // error() printed the message and the usage, then threw through exitOverride
      }
      return EXIT.usage;
    }
    if (e instanceof CommanderError) {
      // --help, --version and `help`: 0; the help printed because no command was given: a usage error
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || (e.code === 'commander.help' && e.exitCode === 0)) return EXIT.ok;
      return EXIT.usage;
    }
    if (e instanceof CliError) {
      if (e.message) err(`radar-console: ${e.message}\n`);
      return e.exitCode;
    }
    err(`radar-console: ${(e as Error).message ?? String(e)}\n`);
    return EXIT.failed;
  }
}
