// The reference PostgreSQL 15 of the text search comparisons (Debian's package; .ci/run installs
// and starts it and makes a login role and a UTF-8 `textsearch` database with the C.UTF-8 locale).
// Reached over its local socket as the current user (PGHOST, PGUSER, PGDATABASE override).
// Without one, `why` says what is missing; with TEXTSEARCH_REQUIRE_POSTGRES=1 (CI) a test must
// fail rather than skip.
import os from 'node:os';
import pg from 'pg';

export const POSTGRES_REQUIRED = process.env.TEXTSEARCH_REQUIRE_POSTGRES === '1';

export async function connectPostgres(): Promise<{ client: pg.Client | null; why: string }> {
  const host = process.env.PGHOST ?? '/var/run/postgresql';
  const user = process.env.PGUSER ?? os.userInfo().username;
  const databases = process.env.PGDATABASE ? [process.env.PGDATABASE] : ['textsearch', 'postgres'];
  let failure = '';
  for (const database of databases) {
    const c = new pg.Client({ host, user, database, connectionTimeoutMillis: 5000 });
    c.on('error', () => {});
    try {
      await c.connect();
    } catch (e) {
      failure = (e as Error).message;
      continue;
    }
    const { rows } = await c.query(`select current_setting('server_version') v, current_setting('server_version_num')::int n, current_setting('lc_ctype') c, current_setting('server_encoding') e`);
    const f = rows[0];
    if (f.n < 150000 || f.n >= 160000 || f.c !== 'C.UTF-8' || f.e !== 'UTF8') {
      await c.end();
      return { client: null, why: `the reference is PostgreSQL 15 with a C.UTF-8, UTF8 database; found ${f.v}, ${f.c}, ${f.e}` };
    }
    await c.query(`set client_min_messages = warning`);
    return { client: c, why: '' };
  }
  return { client: null, why: `PostgreSQL is not reachable at ${host} as ${user} (${failure})` };
}

/** Prints why the comparison is skipped (or required) in a banner. */
export function announceMissing(what: string, why: string): void {
  const line = `${what}: ${why}; the comparison with PostgreSQL is ${POSTGRES_REQUIRED ? 'REQUIRED here (TEXTSEARCH_REQUIRE_POSTGRES=1)' : 'skipped'}`;
  console.warn(`\n${'*'.repeat(line.length)}\n${line}\n${'*'.repeat(line.length)}\n`);
}
