// Shapes of the correlation rule's nested JSON (spec: Correlation rule). Known keys are typed;
// objects stay open (`loose`) because the platform adds keys between versions.
import { z } from 'zod';

export const expressionSchema = z.looseObject({ type: z.string(), value: z.unknown().optional() });

export const conditionSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string(),
  parentId: z.string().nullable().optional(),
  negation: z.boolean().optional(),
  compareFn: z.string().optional(),
  ignore_case: z.boolean().optional(),
  expressions: z.array(expressionSchema).optional(),
});

export const alertSchema = z.looseObject({
  id: z.string().optional(),
  trace_id: z.string().optional(),
  name: z.string().optional(),
  create_incident: z.boolean().optional(),
  assign_to_customer: z.boolean().optional(),
  risk_level: z.number().optional(),
  asset_ip: z.string().optional(),
  asset_hostname: z.string().optional(),
  asset_fqdn: z.string().optional(),
  asset_mac: z.string().optional(),
  first_and_last_logs: z.boolean().optional(),
  trim_logs: z.number().int().optional(),
  template: z.string().optional(),
  mitre: z.string().optional(),
  incident_group: z.string().optional(),
});

export const grouperSchema = z.looseObject({
  id: z.string().optional(),
  trace_id: z.string().optional(),
  name: z.string().optional(),
  grouped_by: z.array(z.string()).optional(),
  aggregated_by: z.array(z.string()).optional(),
  grouped_time_field: z.string().optional(),
  grouped_time_type: z.string().optional(),
  detection_windows: z.number().int().optional(),
  detection_windows_unit: z.string().optional(),
  aggregate_count: z.number().int().optional(),
  aggregate_unique: z.boolean().optional(),
  chain_pattern: z.array(conditionSchema).optional(),
});

export const actionSchema = z.looseObject({
  type: z.string(),
  store: z.string().optional(),
  value: z.string().optional(),
  column: z.string().optional(),
  TTL: z.string().optional(),
  key: z.looseObject({ _default: z.looseObject({ type: z.string().optional(), value: z.unknown().optional() }) }).optional(),
});

export const frontendDataSchema = z.looseObject({
  alert: alertSchema.optional(),
  grouper: grouperSchema.optional(),
  actions: z.array(actionSchema).optional(),
  conditions: z.array(conditionSchema).optional(),
  version: z.number().int().optional(),
});

export const ruleSettingsSchema = z.looseObject({
  function_metrics: z.boolean().optional(),
  is_constructor: z.boolean().optional(),
  max_alerts: z.number().int().optional(),
  max_alerts_per_second: z.number().int().optional(),
  max_rule_memory_mb: z.number().int().optional(),
});

export const ruleStatsSchema = z.looseObject({ result_count: z.number().int().optional(), error_count: z.number().int().optional() });

export const filterStatsSchema = z.looseObject({
  hit_count: z.number().optional(),
  hit_eps: z.number().optional(),
  check_count: z.number().optional(),
  check_eps: z.number().optional(),
  check_time: z.number().optional(),
});

export const assetInfoSchema = z.looseObject({
  ip: z.string().optional(),
  hostname: z.string().optional(),
  fqdn: z.string().optional(),
  mac: z.string().optional(),
});

export const valuesSchemeSchema = z.array(z.looseObject({ name: z.string(), type: z.string(), is_key: z.boolean().optional() }));

export const integrationParamSchema = z.object({
  parameter_name: z.string(),
  parameter_value: z.string(),
  from_logline: z.boolean(),
  strategy: z.enum(['first', 'last']),
});
