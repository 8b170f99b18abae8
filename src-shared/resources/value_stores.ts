import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { valuesSchemeSchema } from '../schemas/correlation';
import { K } from './kinds';

/** Value stores: tables rules read and write (lists, counters, external databases). */
export const valueStores: ResourceDef = {
  name: K.valueStore,
  table: K.valueStore,
  title: { en: 'Value stores', ru: 'Хранилища значений' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    description: f.str(),
    values_scheme: f.arr({ schema: valuesSchemeSchema, default: [] }),
    is_large: f.bool({ default: false }),
    mask_values: f.bool({ default: false }),
    type: f.str(),
    version: f.int({ default: 1 }),
    source: f.str(),
    scheme: f.str(),
    db_name: f.str(),
    user: f.str(),
    password: f.str({ secret: true, searchable: false }),
    store_count: f.int({ default: 0 }),
    content: f.str(),
    tollerId: f.str(),
  },
  relations: {
    [K.engineGoRule]: rel.manyToMany(K.engineGoRule, 'engine_go_rule_value_stores', 'value_store_id', 'engine_go_rule_id'),
  },
};
