// Who may call: requests must name this server by a loopback host (DNS rebinding), and carry
// the API key (`PgrApiKey`) or a Bearer JWT signed with this server's secret.
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ERR } from '../../src-shared/errors';
import { isUuid } from '../../src-shared/schemas/common';
import { sendError } from './errors';
import { isAllowedHost } from './hosts';
import { fastJwt } from './tokens';

export interface AuthConfig {
  apiKey: string;
  jwtSecret: string;
  /** Host names this server answers to besides the loopback ones. */
  extraHosts?: readonly string[];
  /** Paths served without credentials (the console's static shell). */
  isPublic?: (req: FastifyRequest) => boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's user id: the token's subject, or Pgr-User-Id when it is a uuid. */
    userId?: string;
  }
}

/** Distinct Host values whose check is kept (more are checked each time). */
const KNOWN_HOSTS = 64;

/**
 * A constant-time check of presented keys against one key, without hashing on every request:
 * the presented bytes are copied into a buffer of the key's length (zero-padded, cut at the
 * length) and compared in full, so the time depends on neither the key's bytes nor where a
 * presented key first differs; a length mismatch is told only by the answer.
 */
export function keyChecker(key: string): (given: string) => boolean {
  const want = Buffer.from(key, 'utf8');
  const scratch = Buffer.alloc(want.length);
  return (given) => {
    scratch.fill(0);
    scratch.write(given, 'utf8');
    const same = crypto.timingSafeEqual(scratch, want);
    return Buffer.byteLength(given, 'utf8') === want.length && same;
  };
}

export { issueToken } from './tokens';

export function installSecurity(app: FastifyInstance, cfg: AuthConfig): void {
  // Made with the first token presented (fast-jwt loads then).
  let verifier: ((token: string) => unknown) | undefined;
  const verify = (token: string) => (verifier ??= fastJwt().createVerifier({ key: cfg.jwtSecret, algorithms: ['HS256'], requiredClaims: ['sub', 'exp'], cache: 1000 }))(token);
  const keyMatches = keyChecker(cfg.apiKey);
  // The Host values seen, each checked once (a client sends the same one on every request).
  const hosts = new Map<string, boolean>();
  const hostAllowed = (header: string | undefined): boolean => {
    if (header === undefined) return isAllowedHost(header, cfg.extraHosts);
    let ok = hosts.get(header);
    if (ok === undefined) {
      ok = isAllowedHost(header, cfg.extraHosts);
      if (hosts.size < KNOWN_HOSTS) hosts.set(header, ok);
    }
    return ok;
  };
  const setUser = (req: FastifyRequest) => {
    const uid = req.headers['pgr-user-id'];
    if (!req.userId && typeof uid === 'string' && isUuid(uid)) req.userId = uid;
  };
  // A callback hook (no promise per request); an early answer ends the request without done().
  app.addHook('onRequest', (req, reply, done) => {
    if (!hostAllowed(req.headers.host)) return void sendError(reply, 403, ERR.forbiddenHost);
    const key = req.headers.pgrapikey;
    // The right key: served, whether or not the path would be served without it.
    if (typeof key === 'string' && keyMatches(key)) {
      setUser(req);
      return done();
    }
    if (cfg.isPublic?.(req)) return done();
    const authz = req.headers.authorization;
    if (key === undefined && authz === undefined) return void sendError(reply, 401, ERR.noAuthHeader);
    if (typeof key === 'string') return void sendError(reply, 401, 'invalid api key');
    const m = /^Bearer\s+(\S+)$/i.exec(authz ?? '');
    if (!m) return void sendError(reply, 401, 'invalid authorization header');
    try {
      const claims = verify(m[1]!) as { sub?: unknown };
      if (typeof claims.sub === 'string' && isUuid(claims.sub)) req.userId = claims.sub;
    } catch {
      return void sendError(reply, 401, 'invalid token');
    }
    setUser(req);
    done();
  });
}
