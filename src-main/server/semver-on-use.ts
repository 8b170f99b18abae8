// The `semver` functions Fastify's plugin checks use, loaded when one is first called: Fastify is
// bundled (electron.vite.config.ts) with `semver` resolved to this module. semver's index loads
// its 47 files (about 20 ms at every start) for the plugins' version checks, which run when a
// plugin declaring a Fastify version is registered, not before the first answer. The package is
// the one Fastify itself depends on. test/unit/semver-on-use.test.ts checks that every function
// Fastify calls is here.
import { createRequire } from 'node:module';

type Semver = typeof import('semver');

let loaded: Semver | undefined;
const semver = (): Semver => (loaded ??= createRequire(require.resolve('fastify/package.json'))('semver') as Semver);

export const gt: Semver['gt'] = (...a) => semver().gt(...a);
export const coerce: Semver['coerce'] = (...a) => semver().coerce(...a);
export const satisfies: Semver['satisfies'] = (...a) => semver().satisfies(...a);
