// The name of each record kind, written once. The name is the platform's: the table, the
// resource of /cruddy/v2/<name>, the prefix of its operationIds. Declarations, the contract and
// the code that treats a kind in its own way refer to it as `K.<kind>`, never by the string.
// A leaf module (no imports): declarations import it without importing each other.

export const K = {
  responsibleGroups: 'responsible_groups',
  softwareGroups: 'software_groups',
  software: 'software',
  findings: 'findings',
  serviceAssets: 'service_assets',
  serviceAssetGroups: 'service_asset_groups',
  networkInterfaces: 'network_interfaces',
  hardwareInformations: 'hardware_informations',
  vulnerabilityHosts: 'vulnerability_hosts',
  /** Incidents. */
  incidents: 'service_asset_findings',
  /** An incident's status changes (the platform makes one per change). */
  statusChanges: 'service_asset_finding_status_changes',
  occurrences: 'occurrences',
  vulnerabilities: 'vulnerabilities',
  messages: 'messages',
  customFields: 'custom_fields',
  customFieldValues: 'custom_field_values',
  engineGoFilters: 'engine_go_filters',
  engineGoModules: 'engine_go_modules',
  ruleSets: 'rule_sets',
  valueStores: 'value_stores',
  engineGoRules: 'engine_go_rules',
  engineGoResults: 'engine_go_results',
  rules: 'rules',
  integrationScripts: 'integration_scripts',
  /** A correlation rule's integration actions. */
  integrationActions: 'engine_go_rules_integration_actions',
  inputSources: 'input_sources',
  agents: 'agents',
} as const;

export type KindKey = keyof typeof K;
/** The name of a record kind. */
export type KindName = (typeof K)[KindKey];
