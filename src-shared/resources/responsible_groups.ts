import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Responsible groups: the teams that own assets; a tree through parent_group. */
export const responsibleGroups: ResourceDef = {
  name: K.responsibleGroup,
  table: K.responsibleGroup,
  title: { en: 'Responsible groups', ru: 'Ответственные группы' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    parent_group: f.ref(K.responsibleGroup),
    realm_id: f.str(),
    email: f.str(),
    phone_number: f.str(),
    leader_id: f.uuid(),
    accept_risk: f.bool({ default: false }),
    visible_scan_schedules: f.bool({ default: false }),
    stop_scans: f.bool({ default: false }),
    edited_by: f.str(),
    user_ids: f.arr({ schema: z.array(z.string()), default: [] }),
  },
  relations: {
    parent: rel.belongsTo(K.responsibleGroup, 'parent_group'),
    [K.serviceAsset]: rel.hasMany(K.serviceAsset, 'responsible_group_id'),
    [K.serviceAssetGroup]: rel.hasMany(K.serviceAssetGroup, 'responsible_group_id'),
  },
  tree: { parent: 'parent_group' },
};
