import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Hardware found on assets. */
export const hardwareInformations: ResourceDef = {
  name: K.hardwareInformation,
  table: K.hardwareInformation,
  title: { en: 'Hardware', ru: 'Оборудование' },
  label: 'name',
  fields: {
    hardware_type: f.str(),
    name: f.str(),
    manufacturer: f.str(),
    serial_number: f.str(),
    additional_info: f.str(),
    is_old: f.bool({ default: false }),
    service_asset_id: f.ref(K.serviceAsset),
  },
  relations: {
    service_asset: rel.belongsTo(K.serviceAsset, 'service_asset_id'),
  },
};
