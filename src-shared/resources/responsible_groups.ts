import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';

/** Responsible groups: the teams that own assets; a tree through parent_group. */
export const responsibleGroups: ResourceDef = {
  name: 'responsible_groups',
  table: 'responsible_groups',
  title: { en: 'Responsible groups', ru: 'Ответственные группы' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    parent_group: f.ref('responsible_groups'),
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
    parent: rel.belongsTo('responsible_groups', 'parent_group'),
    service_assets: rel.hasMany('service_assets', 'responsible_group_id'),
    service_asset_groups: rel.hasMany('service_asset_groups', 'responsible_group_id'),
  },
  tree: { parent: 'parent_group' },
};
