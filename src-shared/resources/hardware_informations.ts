import { f, rel } from './fields';
import type { ResourceDef } from './types';

/** Hardware found on assets. */
export const hardwareInformations: ResourceDef = {
  name: 'hardware_informations',
  table: 'hardware_informations',
  title: { en: 'Hardware', ru: 'Оборудование' },
  label: 'name',
  fields: {
    hardware_type: f.str(),
    name: f.str(),
    manufacturer: f.str(),
    serial_number: f.str(),
    additional_info: f.str(),
    is_old: f.bool({ default: false }),
    service_asset_id: f.ref('service_assets'),
  },
  relations: {
    service_asset: rel.belongsTo('service_assets', 'service_asset_id'),
  },
};
