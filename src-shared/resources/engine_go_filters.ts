import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { conditionSchema, filterStatsSchema } from '../schemas/correlation';
import { K } from './kinds';

/** Rule filters: reusable condition lists. */
export const engineGoFilters: ResourceDef = {
  name: K.engineGoFilter,
  table: K.engineGoFilter,
  title: { en: 'Rule filters', ru: 'Фильтры правил' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    config: f.arr({ schema: z.array(conditionSchema), default: [] }),
    stats: f.obj({ schema: filterStatsSchema }),
  },
  relations: {
    [K.engineGoRule]: rel.manyToMany(K.engineGoRule, 'engine_go_rule_filters', 'engine_go_filter_id', 'engine_go_rule_id'),
  },
};
