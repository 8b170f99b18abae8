// What the sync subcommands run, loaded only when one of them does (sync.ts holds their flags
// and help, which every other command's start-up would otherwise pay for).
export { countOf, counts, rowsOf, views } from '../store/outbox-log';
export { SyncError } from '../sync/errors';
export { hasOriginKey } from '../sync/origin';
export { pull } from '../sync/pull';
export { push } from '../sync/push';
export { discard, resolve } from '../sync/resolve';
export { openSnapshot } from '../sync/target';
