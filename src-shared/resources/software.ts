import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Installed software found on assets; raw_output_line is unique (contract.md §2). */
export const software: ResourceDef = {
  name: K.softwareItem,
  table: K.softwareItem,
  title: { en: 'Software', ru: 'Программное обеспечение' },
  label: 'name',
  fields: {
    name: f.str({ required: true, notNull: true }),
    raw_output_line: f.str({ unique: true }),
    version: f.str(),
    release: f.str(),
    os: f.str(),
    display_name: f.str(),
    description: f.str(),
    software_group_id: f.ref(K.softwareGroup),
    tsvector: f.str({ searchable: false }),
  },
  relations: {
    software_group: rel.belongsTo(K.softwareGroup, 'software_group_id'),
    [K.serviceAsset]: rel.manyToMany(K.serviceAsset, 'service_asset_software', 'software_id', 'service_asset_id'),
  },
  indexes: [['name', 'version']],
};
