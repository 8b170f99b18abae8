// Bearer tokens (contract.md §3): HS256 JWTs signed with the server's secret, the user id as `sub`.
// Apart from the request checks (security.ts) so that the command line issues them without
// loading the server. The JWT library is loaded when a token is first issued or checked: most
// callers send the API key, and a server that never sees a token never loads it.
import { createRequire } from 'node:module';

type FastJwt = typeof import('fast-jwt');

let loaded: FastJwt | undefined;

/** fast-jwt, loaded on first use. */
export const fastJwt = (): FastJwt => (loaded ??= createRequire(__filename)('fast-jwt') as FastJwt);

export function issueToken(secret: string, userId: string, ttlSeconds: number): string {
  const sign = fastJwt().createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
  return sign({ sub: userId });
}
