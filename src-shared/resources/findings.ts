import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Finding types: what an incident is an instance of (spec: Finding type). */
export const findings: ResourceDef = {
  name: K.finding,
  table: K.finding,
  title: { en: 'Finding types', ru: 'Типы инцидентов' },
  label: 'title',
  fields: {
    title: f.str({ required: true, notNull: true }),
    description: f.str(),
    risk_impact: f.str(),
    solution: f.str(),
    mitigation: f.str(),
    synopsis: f.str(),
    comment: f.str(),
    client_note: f.str(),
    internal_note: f.str(),
    display_id: f.int({ sequence: true, unique: true }),
    local: f.bool({ default: true }),
    new_version: f.bool({ default: false }),
    customer_created: f.bool({ default: false }),
    software_compliance: f.bool({ default: false }),
    type: f.str(),
    identifier: f.obj({ default: {} }),
    fallback_raw_risklevel: f.num({ min: 0, max: 10 }),
    cpes: f.arr({ schema: z.array(z.string()), default: [] }),
    category_id: f.str(),
    category: f.str(),
    is_system: f.bool({ default: false }),
    updated_by: f.str(),
    created_by_customer: f.str(),
    edited_by: f.str(),
    itsm_last_synced_at: f.ts(),
  },
  relations: {
    [K.incident]: rel.hasMany(K.incident, 'finding_id'),
    [K.engineGoRule]: rel.hasMany(K.engineGoRule, 'finding_id'),
    [K.message]: rel.hasMany(K.message, 'finding_id'),
  },
  indexes: [['type', 'title']],
};
