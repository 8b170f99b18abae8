import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Vulnerabilities reported by scanners (spec: Vulnerability). */
export const vulnerabilities: ResourceDef = {
  name: K.vulnerability,
  table: K.vulnerability,
  title: { en: 'Vulnerabilities', ru: 'Уязвимости' },
  label: 'plugin_name',
  fields: {
    plugin_id: f.str({ index: true }),
    plugin_name: f.str(),
    description: f.str(),
    severity: f.int({ min: 0, max: 4 }),
    additional_data: f.obj(),
    protocol: f.str(),
    port: f.int({ min: 0, max: 65535 }),
    occurrence_id: f.ref(K.occurrence),
    synopsis: f.str(),
    vulnerability_host_id: f.ref(K.vulnerabilityHost),
    exploitable: f.bool({ default: false }),
    plugin_output: f.str(),
    solution: f.str(),
    compare_port: f.int(),
    compare_protocol: f.str(),
    service_asset_id: f.ref(K.serviceAsset),
    vulnerability_scan_id: f.str(),
    external: f.bool({ default: false }),
    remote_exploitable: f.bool({ default: false }),
    cvss_vector: f.str(),
    cvss_temporal_vector: f.str(),
    cvss_base_score: f.str(),
    cvss_temporal_score: f.str(),
    risk_factor: f.str(),
    plugin_modification_date: f.str(),
    publication_date: f.str(),
  },
  relations: {
    occurrence: rel.belongsTo(K.occurrence, 'occurrence_id'),
    vulnerability_host: rel.belongsTo(K.vulnerabilityHost, 'vulnerability_host_id'),
    service_asset: rel.belongsTo(K.serviceAsset, 'service_asset_id'),
  },
};
