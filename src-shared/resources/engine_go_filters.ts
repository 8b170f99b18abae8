import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { conditionSchema, filterStatsSchema } from '../schemas/correlation';
import { K } from './kinds';

/** Rule filters: reusable condition lists. */
export const engineGoFilters: ResourceDef = {
  name: K.engineGoFilters,
  table: K.engineGoFilters,
  title: { en: 'Rule filters', ru: 'Фильтры правил' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    config: f.arr({ schema: z.array(conditionSchema), default: [] }),
    stats: f.obj({ schema: filterStatsSchema }),
  },
  relations: {
    [K.engineGoRules]: rel.manyToMany(K.engineGoRules, 'engine_go_rule_filters', 'engine_go_filter_id', 'engine_go_rule_id'),
  },
};
