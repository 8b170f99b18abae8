// `radar-console token`: a Bearer JWT the server of a database accepts (signed with the secret
// kept beside that database).
import { Command } from '@commander-js/extra-typings';
import { LOCAL_USER_ID } from '../../src-shared/ids';
import { loadSecrets } from '../config/secrets';
import { DB_HELP, existingDb, intIn, uuidArg } from './options';

/** The user a token names when --user is not given: the local analyst (the console's Pgr-User-Id). */
export { LOCAL_USER_ID };

export function tokenCommand() {
  return new Command('token')
    .description('print a Bearer token (JWT) for the server of a database')
    .option('--db <file>', DB_HELP)
    .option('--user <uuid>', `the token's user id, its subject (default: ${LOCAL_USER_ID})`, uuidArg)
    .option('--ttl <seconds>', 'lifetime in seconds (default: 86400)', intIn(1, 10 * 365 * 86400))
    .addHelpText('after', '\nUse it as `Authorization: Bearer <token>` instead of the PgrApiKey header.')
    .action(async (opts) => {
      const secrets = loadSecrets(existingDb(opts.db));
      const { issueToken } = await import('../server/tokens');
      process.stdout.write(`${issueToken(secrets.jwtSecret, opts.user ?? LOCAL_USER_ID, opts.ttl ?? 86400)}\n`);
    });
}
