import { computed, f, OPEN_STATUSES_SQL, rel, riskBandSql } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

const openMax = `(SELECT MAX(x.risklevel) FROM ${K.incidents} x WHERE x.service_asset_id = t.id AND x.status IN (${OPEN_STATUSES_SQL}))`;
const latestHost = `(SELECT h.%s FROM ${K.vulnerabilityHosts} h WHERE h.service_asset_id = t.id ORDER BY h.scan_end DESC LIMIT 1)`;
const countStatus = (where: string) => `(SELECT COUNT(*) FROM ${K.incidents} x WHERE x.service_asset_id = t.id AND ${where})`;

/** Assets (spec: Asset). value and network_exposure are 1..5 scales. */
export const serviceAssets: ResourceDef = {
  name: K.serviceAssets,
  table: K.serviceAssets,
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
    responsible_group_id: f.ref(K.responsibleGroups),
    edited_by: f.str(),
  },
  computed: {
    is_local: computed('bool', `(t.scan_id IS NULL OR t.scan_id = '')`, { description: 'created locally, not by a scan' }),
    risklevel: computed('number', `COALESCE(${openMax}, 0)`, { description: 'highest risk level of open incidents' }),
    risk: computed('string', riskBandSql(openMax)),
    mac_ip: computed(
      'json',
      `(SELECT json_group_array(TRIM(COALESCE(n.mac,'') || ' ' || COALESCE(n.ip,''))) FROM ${K.networkInterfaces} n WHERE n.service_asset_id = t.id)`,
      { jsonShape: 'array' },
    ),
    os_list: computed(
      'json',
      `(SELECT json_group_array(o.os) FROM (SELECT DISTINCT n.os AS os FROM ${K.networkInterfaces} n WHERE n.service_asset_id = t.id AND n.os IS NOT NULL AND n.os <> '') o)`,
      { jsonShape: 'array' },
    ),
    responsible_group_name: computed('string', `(SELECT g.name FROM ${K.responsibleGroups} g WHERE g.id = t.responsible_group_id)`),
    closed_count: computed('int', countStatus(`x.status IN ('closed','invalid')`)),
    risk_accepted_count: computed('int', countStatus(`x.status = 'risk_accepted'`)),
    all_open_count: computed('int', countStatus(`x.status IN (${OPEN_STATUSES_SQL})`)),
    last_scan: computed('timestamp', `(SELECT MAX(h.scan_end) FROM ${K.vulnerabilityHosts} h WHERE h.service_asset_id = t.id)`),
    authenticated: computed('bool', latestHost.replace('%s', 'authenticated')),
    authentication_info: computed('json', latestHost.replace('%s', 'authentication_info'), { jsonShape: 'object' }),
    network_interface_ids: computed(
      'json',
      `(SELECT json_group_array(n.id) FROM ${K.networkInterfaces} n WHERE n.service_asset_id = t.id)`,
      { jsonShape: 'array' },
    ),
  },
  relations: {
    responsible_group: rel.belongsTo(K.responsibleGroups, 'responsible_group_id'),
    [K.hardwareInformations]: rel.hasMany(K.hardwareInformations, 'service_asset_id'),
    [K.engineGoResults]: rel.hasMany(K.engineGoResults, 'service_asset_id'),
    [K.messages]: rel.hasMany(K.messages, 'service_asset_id'),
    [K.networkInterfaces]: rel.hasMany(K.networkInterfaces, 'service_asset_id'),
    [K.incidents]: rel.hasMany(K.incidents, 'service_asset_id'),
    [K.serviceAssetGroups]: rel.manyToMany(K.serviceAssetGroups, 'service_asset_group_members', 'service_asset_id', 'service_asset_group_id'),
    [K.software]: rel.manyToMany(K.software, 'service_asset_software', 'service_asset_id', 'software_id'),
    [K.vulnerabilities]: rel.hasMany(K.vulnerabilities, 'service_asset_id'),
    [K.vulnerabilityHosts]: rel.hasMany(K.vulnerabilityHosts, 'service_asset_id'),
    [K.inputSources]: rel.manyToMany(K.inputSources, 'input_source_service_assets', 'service_asset_id', 'input_source_id'),
  },
  indexes: [['name'], ['value', 'name']],
};
