// The name of each record kind, written once. The name is the platform's: the table, the
// resource of /cruddy/v2/<name>, the prefix of its operationIds. Declarations, the contract and
// the code that treats a kind in its own way refer to it as `K.<kind>`, never by the string; the
// keys are singular (`K.message`), so a search for a name finds only the places that write it.
// A leaf module (no imports): declarations import it without importing each other.

export const K = {
  responsibleGroup: 'responsible_groups',
  softwareGroup: 'software_groups',
  softwareItem: 'software',
  finding: 'findings',
  serviceAsset: 'service_assets',
  serviceAssetGroup: 'service_asset_groups',
  networkInterface: 'network_interfaces',
  hardwareInformation: 'hardware_informations',
  vulnerabilityHost: 'vulnerability_hosts',
  /** Incidents. */
  incident: 'service_asset_findings',
  /** An incident's status changes (the platform makes one per change). */
  statusChange: 'service_asset_finding_status_changes',
  occurrence: 'occurrences',
  vulnerability: 'vulnerabilities',
  message: 'messages',
  customField: 'custom_fields',
  customFieldValue: 'custom_field_values',
  engineGoFilter: 'engine_go_filters',
  engineGoModule: 'engine_go_modules',
  ruleSet: 'rule_sets',
  valueStore: 'value_stores',
  engineGoRule: 'engine_go_rules',
  engineGoResult: 'engine_go_results',
  rule: 'rules',
  integrationScript: 'integration_scripts',
  /** A correlation rule's integration actions. */
  integrationAction: 'engine_go_rules_integration_actions',
  inputSource: 'input_sources',
  agent: 'agents',
} as const;

export type KindKey = keyof typeof K;
/** The name of a record kind. */
export type KindName = (typeof K)[KindKey];
