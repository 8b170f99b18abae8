// Bodies of the spec's named endpoints, with the spec's own error texts.
import { z } from 'zod';
import { ERR } from '../errors';
import { getResource, OCCURRENCE_EVENT_TYPES } from '../resources/index';
import { isValidTsQuery } from '../tsquery';
import { timestampSchema, UUID_RE, uuidSchema } from './common';
import { fieldInputSchema, requiredMsg, writeShape, type WriteBody } from './resource';
import { integrationParamSchema } from './correlation';
import { K } from '../resources/kinds';

const textOr = (onMissing: string, onWrong: string) => (iss: { input?: unknown }) => (iss.input === undefined ? onMissing : onWrong);

// ---- software compliance rules (POST /rules/create, PUT /rules/update)

const ruleName = z
  .string({ error: textOr(ERR.nameEmpty, 'name should be a string') })
  .refine((s) => s.trim() !== '', ERR.nameEmpty)
  .refine((s) => s.length <= 250, ERR.tooLong);

const ruleQuery = z
  .string({ error: textOr('query is required', 'query should be a string') })
  .refine(isValidTsQuery, ERR.invalidQuery)
  .describe('PostgreSQL tsquery syntax, validated before anything is stored');

const ruleRelations = z.strictObject({ [K.ruleSet]: z.array(z.string(), { error: ERR.ruleSetsBad }).optional() }).optional();

const ruleBase = (mode: 'create' | 'update') => {
  const shape = writeShape(getResource(K.rule), mode);
  return {
    ...shape,
    trace_id: z.string({ error: textOr('trace_id is required', 'trace_id should be a string') }),
    name: ruleName,
    query: ruleQuery,
    _relations: ruleRelations,
  };
};

type Update = WriteBody & { id: string };

export const ruleCreateSchema = z.strictObject(ruleBase('create')).meta({ id: 'RuleCreate' }) as unknown as z.ZodType<WriteBody>;

export const modelIdSchema = z
  .string({ error: textOr(ERR.missingModelId, ERR.badModelId) })
  .refine((s) => s !== '', ERR.missingModelId)
  .refine((s) => s === '' || UUID_RE.test(s), ERR.badModelId);

export const ruleUpdateSchema = z.strictObject({ ...ruleBase('update'), id: modelIdSchema }).meta({ id: 'RuleUpdate' }) as unknown as z.ZodType<Update>;

// ---- assets (PUT /service_assets/update)

const req = (name: string) => ({ error: requiredMsg(name) });
export const serviceAssetUpdateSchema = z
  .strictObject({
    ...writeShape(getResource(K.serviceAsset), 'update'),
    trace_id: z.string(req('trace_id')).describe('action trace id for audit'),
    type: z.string(req('type')),
    name: z.string(req('name')).min(1, 'name should not be empty'),
    location: z.string(req('location')),
  })
  .meta({ id: 'ServiceAssetUpdate' }) as unknown as z.ZodType<Update>;

// ---- occurrences (POST /occurrences/create): every field required

const occ = getResource(K.occurrence);
export const occurrenceCreateSchema = z
  .strictObject({
    // A client-supplied id is honoured on every create (README: client-supplied ids).
    id: uuidSchema.optional().describe('the new record\'s id (a uuid); the server makes one when absent'),
    ...Object.fromEntries(
      Object.entries(occ.fields).map(([name, def]) => {
        if (name === 'event_type') return [name, z.enum(OCCURRENCE_EVENT_TYPES, req(name))];
        const s = fieldInputSchema(name, { ...def, notNull: true });
        return [name, s];
      }),
    ),
  })
  .meta({ id: 'OccurrenceCreate' }) as unknown as z.ZodType<WriteBody>;

// ---- custom field values (PUT /custom_field_values/update)

const cfv = getResource(K.customFieldValue);
export const customFieldValueUpdateSchema = z
  .strictObject({
    ...writeShape(cfv, 'update'),
    created_at: timestampSchema.or(z.string()).describe('required by the platform; the server keeps its own'),
    updated_at: timestampSchema.or(z.string()).describe('required by the platform; the server sets it'),
    custom_field_id: z.string(req('custom_field_id')).regex(UUID_RE, 'custom_field_id: expected a uuid'),
    service_asset_finding_id: z.string(req('service_asset_finding_id')).regex(UUID_RE, 'service_asset_finding_id: expected a uuid'),
  })
  .meta({ id: 'CustomFieldValueUpdate' }) as unknown as z.ZodType<Update & { created_at?: string; updated_at?: string }>;

// ---- active actions (POST /engine_go_rules_integration_actions/create)

export const integrationActionCreateSchema = z
  .strictObject({
    id: uuidSchema.optional().describe('the new record\'s id (a uuid); the server makes one when absent'),
    rule_id: z
      .string({ error: textOr(ERR.emptyRuleId, ERR.ruleIdNotUuid) })
      .refine((s) => s !== '', ERR.emptyRuleId)
      .refine((s) => s === '' || UUID_RE.test(s), ERR.ruleIdNotUuid),
    integration_script_id: z
      .string({ error: textOr(ERR.emptyScriptId, ERR.scriptIdNotUuid) })
      .refine((s) => s !== '', ERR.emptyScriptId)
      .refine((s) => s === '' || UUID_RE.test(s), ERR.scriptIdNotUuid),
    params: z.array(integrationParamSchema, req('params')),
    state: z.boolean(req('state')),
  })
  .meta({ id: 'IntegrationActionCreate' });

// ---- service discovery (POST /sonar/services/scan)

export const scanRequestSchema = z
  .object({
    ips: z.array(z.string()).optional().describe('addresses to scan'),
  })
  .nullish()
  .meta({ id: 'ServicesScanRequest' });

export const scanServiceSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  network_interface_id: z.string(),
  port: z.number().int(),
  status: z.string(),
  type: z.string(),
  name: z.string(),
  version: z.string(),
  cpe: z.string(),
});

export const scanResultSchema = z
  .object({
    ipv4: z.string(),
    ipv6: z.string(),
    mac: z.string(),
    os: z.string(),
    services: z.array(scanServiceSchema),
    error_code: z.number().int(),
    error: z.string(),
  })
  .meta({ id: 'ServicesScanResult' });
