import { computed, f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

const asset = (col: string) => `(SELECT a.${col} FROM ${K.serviceAsset} a WHERE a.id = t.service_asset_id)`;

/** Network interfaces of assets; the asset's own fields are computed alongside. */
export const networkInterfaces: ResourceDef = {
  name: K.networkInterface,
  table: K.networkInterface,
  title: { en: 'Network interfaces', ru: 'Сетевые интерфейсы' },
  label: 'ip',
  fields: {
    name: f.str(),
    ip: f.str({ index: true }),
    mac: f.str(),
    fqdn: f.str(),
    os: f.str(),
    service_asset_id: f.ref(K.serviceAsset),
    edited_by: f.str(),
  },
  computed: {
    service_asset_name: computed('string', asset('name')),
    service_asset_location: computed('string', asset('location')),
    service_asset_value: computed('int', asset('value')),
    service_asset_network_exposure: computed('int', asset('network_exposure')),
    service_asset_group_names: computed(
      'json',
      `(SELECT json_group_array(g.name) FROM service_asset_group_members m JOIN ${K.serviceAssetGroup} g ON g.id = m.service_asset_group_id WHERE m.service_asset_id = t.service_asset_id)`,
      { jsonShape: 'array' },
    ),
    has_service_asset: computed('bool', `(t.service_asset_id IS NOT NULL)`),
  },
  relations: {
    service_asset: rel.belongsTo(K.serviceAsset, 'service_asset_id'),
  },
};
