import { computed, f, OPEN_STATUSES_SQL, rel, riskBandSql } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

const openMax = `(SELECT MAX(x.risklevel) FROM ${K.incident} x WHERE x.service_asset_id = t.id AND x.status IN (${OPEN_STATUSES_SQL}))`;
const latestHost = `(SELECT h.%s FROM ${K.vulnerabilityHost} h WHERE h.service_asset_id = t.id ORDER BY h.scan_end DESC LIMIT 1)`;
const countStatus = (where: string) => `(SELECT COUNT(*) FROM ${K.incident} x WHERE x.service_asset_id = t.id AND ${where})`;

/** Assets (spec: Asset). value and network_exposure are 1..5 scales. */
export const serviceAssets: ResourceDef = {
  name: K.serviceAsset,
  table: K.serviceAsset,
  aliases: ['serviceassets', 'service-assets', 'assets'],
  title: { en: 'Assets', ru: 'Активы' },
  label: 'name',
  fields: {
    trace_id: f.str(),
    type: f.str({ required: true, notNull: true, default: 'Host' }),
    name: f.str({ required: true, notNull: true }),
    description: f.str(),
    coordinates: f.str({ default: '--- []', searchable: false }),
    active: f.bool({ default: true }),
    scan_id: f.str(),
    value: f.int({ min: 1, max: 5, description: '1 key, 2 important, 3 non-critical, 4 distributed, 5 test' }),
    client_note: f.str(),
    internal_note: f.str(),
    location: f.str(),
    network_exposure: f.int({
      min: 1,
      max: 5,
      description: '1 internet, 2 DMZ, 3 internet via proxy, 4 limited internet, 5 no network',
    }),
    responsible_person: f.str(),
    technical_specialist: f.str(),
    responsible_group_id: f.ref(K.responsibleGroup),
    edited_by: f.str(),
  },
  computed: {
    is_local: computed('bool', `(t.scan_id IS NULL OR t.scan_id = '')`, { description: 'created locally, not by a scan' }),
    risklevel: computed('number', `COALESCE(${openMax}, 0)`, { description: 'highest risk level of open incidents' }),
    risk: computed('string', riskBandSql(openMax)),
    mac_ip: computed(
      'json',
      `(SELECT json_group_array(TRIM(COALESCE(n.mac,'') || ' ' || COALESCE(n.ip,''))) FROM ${K.networkInterface} n WHERE n.service_asset_id = t.id)`,
      { jsonShape: 'array' },
    ),
    os_list: computed(
      'json',
      `(SELECT json_group_array(o.os) FROM (SELECT DISTINCT n.os AS os FROM ${K.networkInterface} n WHERE n.service_asset_id = t.id AND n.os IS NOT NULL AND n.os <> '') o)`,
      { jsonShape: 'array' },
    ),
    responsible_group_name: computed('string', `(SELECT g.name FROM ${K.responsibleGroup} g WHERE g.id = t.responsible_group_id)`),
    closed_count: computed('int', countStatus(`x.status IN ('closed','invalid')`)),
    risk_accepted_count: computed('int', countStatus(`x.status = 'risk_accepted'`)),
    all_open_count: computed('int', countStatus(`x.status IN (${OPEN_STATUSES_SQL})`)),
    last_scan: computed('timestamp', `(SELECT MAX(h.scan_end) FROM ${K.vulnerabilityHost} h WHERE h.service_asset_id = t.id)`),
    authenticated: computed('bool', latestHost.replace('%s', 'authenticated')),
    authentication_info: computed('json', latestHost.replace('%s', 'authentication_info'), { jsonShape: 'object' }),
    network_interface_ids: computed(
      'json',
      `(SELECT json_group_array(n.id) FROM ${K.networkInterface} n WHERE n.service_asset_id = t.id)`,
      { jsonShape: 'array' },
    ),
  },
  relations: {
    responsible_group: rel.belongsTo(K.responsibleGroup, 'responsible_group_id'),
    [K.hardwareInformation]: rel.hasMany(K.hardwareInformation, 'service_asset_id'),
    [K.engineGoResult]: rel.hasMany(K.engineGoResult, 'service_asset_id'),
    [K.message]: rel.hasMany(K.message, 'service_asset_id'),
    [K.networkInterface]: rel.hasMany(K.networkInterface, 'service_asset_id'),
    [K.incident]: rel.hasMany(K.incident, 'service_asset_id'),
    [K.serviceAssetGroup]: rel.manyToMany(K.serviceAssetGroup, 'service_asset_group_members', 'service_asset_id', 'service_asset_group_id'),
    [K.softwareItem]: rel.manyToMany(K.softwareItem, 'service_asset_software', 'service_asset_id', 'software_id'),
    [K.vulnerability]: rel.hasMany(K.vulnerability, 'service_asset_id'),
    [K.vulnerabilityHost]: rel.hasMany(K.vulnerabilityHost, 'service_asset_id'),
    [K.inputSource]: rel.manyToMany(K.inputSource, 'input_source_service_assets', 'service_asset_id', 'input_source_id'),
  },
  indexes: [['name'], ['value', 'name']],
};
