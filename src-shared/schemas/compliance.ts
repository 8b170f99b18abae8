// The compliance workbench's API (/console/v1/compliance/*): PostgreSQL's text search for the
// `simple` configuration on texts, queries and the database's software, and the check of rule
// sets against the software installed on the assets of their asset groups.
import { z } from 'zod';
import { uuidSchema } from './common';

/** Most texts, queries or ids one request may carry. */
export const MAX_COMPLIANCE_ITEMS = 10_000;
/** Most software records one page of matches may hold. */
export const MAX_MATCH_PAGE = 1000;
/** Most assets one page of check results may cover. */
export const MAX_CHECK_PAGE = 10_000;

export const COMPLIANCE_VERDICTS = ['satisfied', 'violated'] as const;
export type ComplianceVerdict = (typeof COMPLIANCE_VERDICTS)[number];

/**
 * 10000 as "10,000". Not toLocaleString: this runs when the contract loads, and the first use of
 * ICU's number formats brings about 9 MiB of its data into every server's resident memory.
 */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const list = <T extends z.ZodType>(item: T, what: string) => z.array(item).min(1).max(MAX_COMPLIANCE_ITEMS).describe(`${what} (1 to ${grouped(MAX_COMPLIANCE_ITEMS)})`);

export const tsvectorRequestSchema = z
  .strictObject({ texts: list(z.string(), "texts to index as to_tsvector('simple', text)") })
  .meta({ id: 'TsVectorRequest' });

export const tsvectorAnswerSchema = z
  .strictObject({ tsvectors: z.array(z.string()).describe("each text's to_tsvector('simple', text), printed as PostgreSQL prints it, in the order sent") })
  .meta({ id: 'TsVectorAnswer' });

export const tsqueryRequestSchema = z.strictObject({ queries: list(z.string(), 'rule queries in tsquery syntax') }).meta({ id: 'TsQueryRequest' });

export const tsqueryAcceptedSchema = z
  .strictObject({
    tsquery: z.string().describe("to_tsquery('simple', query) as PostgreSQL prints it; '' when the query holds no word (it then matches nothing)"),
    notice: z.string().optional().describe("PostgreSQL's notice when the query holds no word"),
  })
  .meta({ id: 'TsQueryAccepted' });

export const tsqueryRefusedSchema = z
  .strictObject({
    error: z.string().describe("PostgreSQL's error message, word for word (`syntax error in tsquery: \"a b\"`)"),
    reason: z.string().describe('what is wrong, in words'),
    position: z.number().int().min(0).describe('where reading stopped: a UTF-16 index into the query (0-based)'),
  })
  .meta({ id: 'TsQueryRefused' });

export const tsqueryAnswerSchema = z
  .strictObject({ results: z.array(z.union([tsqueryAcceptedSchema, tsqueryRefusedSchema])).describe('one per query, in the order sent: accepted with its normalised form, or refused as PostgreSQL refuses it') })
  .meta({ id: 'TsQueryAnswer' });

export const matchRequestSchema = z
  .strictObject({
    query: z.string().describe('a rule query in tsquery syntax (read as to_tsquery(\'simple\', query))'),
    texts: list(z.string(), "texts, each matched as to_tsvector('simple', text) @@ query").optional(),
    tsvectors: list(z.string(), 'tsvector texts, each matched as text::tsvector @@ query').optional(),
    software_ids: list(uuidSchema, "software records, each matched by its vector (its stored tsvector, else to_tsvector('simple', name || ' ' || version))").optional(),
    limit: z.number().int().min(0).max(MAX_MATCH_PAGE).optional().describe(`without a list: matching software records per page (default 50, at most ${MAX_MATCH_PAGE})`),
    offset: z.number().int().min(0).optional().describe('without a list: matching software records to skip'),
  })
  .meta({ id: 'MatchRequest' });
export type MatchRequest = z.infer<typeof matchRequestSchema>;

export const matchedSoftwareSchema = z
  .strictObject({
    id: z.string().meta({ format: 'uuid' }),
    name: z.string(),
    version: z.string().nullable(),
    tsvector: z.string().describe('the vector the record was matched by'),
    stored_tsvector: z.boolean().describe('whether that vector is the stored `tsvector` (else it is to_tsvector of name and version)'),
    asset_count: z.number().int().describe('assets the software is installed on'),
  })
  .meta({ id: 'MatchedSoftware' });

export const matchListAnswerSchema = z
  .strictObject({
    tsquery: z.string().describe('the query as PostgreSQL normalises it'),
    matches: z.array(z.boolean()).describe('one per text, tsvector or software id, in the order sent'),
  })
  .meta({ id: 'MatchListAnswer' });

export const matchPageAnswerSchema = z
  .strictObject({
    tsquery: z.string().describe('the query as PostgreSQL normalises it'),
    total: z.number().int().describe('software records of the database the query matches'),
    software_total: z.number().int().describe('software records of the database'),
    unreadable: z.number().int().describe('software records whose stored tsvector text PostgreSQL would refuse (they match nothing)'),
    limit: z.number().int(),
    offset: z.number().int(),
    items: z.array(matchedSoftwareSchema).describe('the page of matching software, in the order the records were stored'),
    took_ms: z.number().describe('time taken to match the whole database'),
  })
  .meta({ id: 'MatchPageAnswer' });

export const matchAnswerSchema = z.union([matchListAnswerSchema, matchPageAnswerSchema]);

export const checkRequestSchema = z
  .strictObject({
    rule_set_ids: z.array(uuidSchema).min(1).max(1000).describe('rule sets to check: each of their rules on each asset of their asset groups'),
    service_asset_ids: z.array(uuidSchema).max(100_000).optional().describe("only these assets (each must be in an asset group of at least one of the sets)"),
    rule_ids: z.array(uuidSchema).max(10_000).optional().describe('only these rules of the sets'),
    queries: z
      .record(uuidSchema, z.string())
      .optional()
      .describe('draft queries by rule id, checked instead of the saved ones and not saved (the console diffs two versions of a query before saving); not with create_incidents'),
    create_incidents: z
      .boolean()
      .optional()
      .describe(
        'create an incident for each violation on the sets with create_service_asset_findings (one per asset and rule, once: a later check updates its occurrence); default false',
      ),
    verdict: z.enum(COMPLIANCE_VERDICTS).optional().describe('only results with this verdict (the summary counts all)'),
    limit: z.number().int().min(0).max(MAX_CHECK_PAGE).optional().describe('assets per page of results (default: every asset)'),
    offset: z.number().int().min(0).optional().describe('assets to skip'),
  })
  .meta({ id: 'CheckRequest' });
export type CheckRequest = z.infer<typeof checkRequestSchema>;

export const checkResultSchema = z
  .strictObject({
    rule_set_id: z.string().meta({ format: 'uuid' }),
    rule_id: z.string().meta({ format: 'uuid' }),
    service_asset_id: z.string().meta({ format: 'uuid' }),
    verdict: z.enum(COMPLIANCE_VERDICTS),
    software_ids: z
      .array(z.string())
      .describe('the installed software matching the rule: what satisfies a whitelist rule or violates a blacklist rule (empty when nothing matches)'),
    incident_id: z.string().nullable().describe("the incident of this asset and rule (the newest, any status), or null"),
  })
  .meta({ id: 'CheckResult' });
export type CheckResult = z.infer<typeof checkResultSchema>;

const incidentRefSchema = z
  .strictObject({
    incident_id: z.string().meta({ format: 'uuid' }),
    display_id: z.number().int().nullable(),
    rule_id: z.string().meta({ format: 'uuid' }),
    service_asset_id: z.string().meta({ format: 'uuid' }),
    status: z.string(),
  })
  .meta({ id: 'ComplianceIncidentRef' });

export const checkSummarySchema = z
  .strictObject({
    rule_sets: z.number().int(),
    rules: z.number().int().describe('distinct rules checked'),
    assets: z.number().int().describe('distinct assets checked'),
    results: z.number().int().describe('(rule set, rule, asset) results'),
    satisfied: z.number().int(),
    violated: z.number().int(),
    by_rule: z.array(z.strictObject({ rule_set_id: z.string(), rule_id: z.string(), satisfied: z.number().int(), violated: z.number().int() })),
    invalid_rules: z
      .array(z.strictObject({ rule_id: z.string(), error: z.string(), position: z.number().int() }))
      .describe('rules whose stored query PostgreSQL would refuse: not checked'),
    incidents: z
      .strictObject({
        would_create: z.number().int().describe('violations (asset, rule) on sets with create_service_asset_findings that have no incident yet'),
        created: z.number().int(),
        updated: z.number().int().describe('incidents whose violation persists: their occurrence updated'),
        not_created_for: z.array(z.string()).describe('rule sets without create_service_asset_findings (their violations raise no incident)'),
        resolved: z.array(incidentRefSchema).describe('open incidents whose violation is gone: left open (closing is the analyst’s choice)'),
        closed_but_violated: z.array(incidentRefSchema).describe('closed, invalid or risk-accepted incidents whose violation persists'),
      })
      .describe('incidents of the checked rules and assets'),
  })
  .meta({ id: 'CheckSummary' });

export const checkAnswerSchema = z
  .strictObject({
    results: z.array(checkResultSchema).describe('by asset (name order), then rule set, then rule name'),
    total_assets: z.number().int().describe('assets with results (after the verdict filter): the pages cover these'),
    limit: z.number().int().nullable(),
    offset: z.number().int(),
    rule_sets: z.array(z.strictObject({ id: z.string(), name: z.string(), create_service_asset_findings: z.boolean() })),
    rules: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        query: z.string().describe('the query checked (the draft when one was sent)'),
        tsquery: z.string(),
        blacklist_entry: z.boolean(),
        draft: z.boolean(),
      }),
    ),
    assets: z.array(z.strictObject({ id: z.string(), name: z.string() })).describe('the assets of this page of results'),
    software: z.array(z.strictObject({ id: z.string(), name: z.string(), version: z.string().nullable() })).describe('the software this page of results names'),
    summary: checkSummarySchema,
    took_ms: z.number(),
  })
  .meta({ id: 'CheckAnswer' });
export type CheckAnswer = z.infer<typeof checkAnswerSchema>;
