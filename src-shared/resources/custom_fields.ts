import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

export const CUSTOM_FIELD_TYPES = ['string', 'integer', 'float', 'date', 'json', 'boolean'] as const;

/** Custom incident fields defined by the platform's users. */
export const customFields: ResourceDef = {
  name: K.customField,
  table: K.customField,
  title: { en: 'Custom fields', ru: 'Пользовательские поля' },
  label: 'title',
  fields: {
    field_key: f.str({ required: true, notNull: true, unique: true }),
    title: f.str({ required: true, notNull: true }),
    field_type: f.str({ enum: CUSTOM_FIELD_TYPES, required: true, notNull: true }),
    order_direction: f.int({ default: 0 }),
  },
  relations: {
    [K.customFieldValue]: rel.hasMany(K.customFieldValue, 'custom_field_id'),
  },
};
