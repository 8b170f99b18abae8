import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Hardware found on assets. */
export const hardwareInformations: ResourceDef = {
  name: K.hardwareInformations,
  table: K.hardwareInformations,
  title: { en: 'Hardware', ru: 'Оборудование' },
  label: 'name',
  fields: {
    hardware_type: f.str(),
    name: f.str(),
    manufacturer: f.str(),
    serial_number: f.str(),
    additional_info: f.str(),
    is_old: f.bool({ default: false }),
    service_asset_id: f.ref(K.serviceAssets),
  },
  relations: {
    service_asset: rel.belongsTo(K.serviceAssets, 'service_asset_id'),
  },
};
