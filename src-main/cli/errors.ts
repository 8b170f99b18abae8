// How the command line fails. Exit codes (documented in the README):
//   0  done
//   1  refused or failed: missing database, data conflict, refused import, HTTP error of `api`
//   2  usage error: unknown command or flag, bad flag value (the command's usage is printed)
//   130 cancelled with Ctrl-C
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** A mistake in how the command was called: exit 2, with the command's usage line. */
export class UsageError extends Error {}

/** The command was called right but cannot do what was asked: exit 1 (or `exitCode`), no usage text. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}
