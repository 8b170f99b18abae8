// Runs in each test file's process before it: the seeded demo database of this run (see
// global-setup.ts) is named in the environment, where the helpers and the CLI processes the
// tests start find it.
import { inject } from 'vitest';
import { SEED_ENV } from './seed';

const seeded = inject('demoSeedDb');
if (seeded) process.env[SEED_ENV] = seeded;
