// Bearer tokens (contract.md §3): HS256 JWTs signed with the server's secret, the user id as `sub`.
// Apart from the request checks (security.ts) so that the command line issues them without
// loading the server.
import { createSigner } from 'fast-jwt';

export function issueToken(secret: string, userId: string, ttlSeconds: number): string {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
  return sign({ sub: userId });
}
