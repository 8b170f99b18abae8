// Finding types: copied from the origin first (incidents point at them), through the public
// API's list.
import { findings } from '../../../src-shared/resources/findings';
import type { KindModule } from './types';

export const findingsKind: KindModule = {
  resource: findings,
  sync: { list: { key: findings.name, order: 0, publicPath: 'findings' } },
};
