import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Values of custom fields on incidents (spec: Custom field value). */
export const customFieldValues: ResourceDef = {
  name: K.customFieldValue,
  table: K.customFieldValue,
  title: { en: 'Custom field values', ru: 'Значения пользовательских полей' },
  label: 'string_value',
  fields: {
    custom_field_id: f.ref(K.customField, 'restrict', { required: true, notNull: true }),
    service_asset_finding_id: f.ref(K.incident, 'cascade', { required: true, notNull: true }),
    string_value: f.str(),
    integer_value: f.int(),
    float_value: f.num(),
    date_value: f.date(),
    json_value: f.obj({
      schema: z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown()), z.array(z.unknown())]),
      description: 'declared a string; objects are accepted as in the published example',
    }),
    boolean_value: f.bool(),
  },
  relations: {
    custom_field: rel.belongsTo(K.customField, 'custom_field_id'),
    service_asset_finding: rel.belongsTo(K.incident, 'service_asset_finding_id'),
  },
  indexes: [['service_asset_finding_id', 'custom_field_id']],
};
