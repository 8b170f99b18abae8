// The compliance workbench's calls: the contract's operations (console.compliance.*) through the
// console's typed client, and the rule sets and rules it edits (the v2 resources).
import type { CheckAnswer, CheckRequest } from '../../../../src-shared/schemas/compliance';
import { emptySearch } from '../../../../src-shared/schemas/search';
import type { Api, Target } from '../../api/client';
import { search, updateRecord, type Rec } from '../../api/radar';

export type TsQueryResult = { tsquery: string; notice?: string } | { error: string; reason: string; position: number };

export interface MatchedSoftware {
  id: string;
  name: string;
  version: string | null;
  tsvector: string;
  stored_tsvector: boolean;
  asset_count: number;
}

export interface MatchPage {
  tsquery: string;
  total: number;
  software_total: number;
  unreadable: number;
  limit: number;
  offset: number;
  items: MatchedSoftware[];
  took_ms: number;
}

export interface RuleRec {
  id: string;
  name: string;
  query: string;
  blacklist_entry: boolean | null;
  rule_sets?: { id: string; name: string }[];
}

export interface RuleSetRec {
  id: string;
  name: string;
  create_service_asset_findings: boolean | null;
}

export async function tsquery(api: Api, target: Target, query: string, signal?: AbortSignal): Promise<TsQueryResult> {
  const answer = await api.op<{ results: TsQueryResult[] }>(target, 'console.compliance.tsquery', { body: { queries: [query] }, signal });
  return answer.results[0]!;
}

export function matchPage(api: Api, target: Target, query: string, limit: number, offset: number, signal?: AbortSignal): Promise<MatchPage> {
  return api.op<MatchPage>(target, 'console.compliance.match', { body: { query, limit, offset }, signal });
}

export function check(api: Api, target: Target, body: CheckRequest, signal?: AbortSignal): Promise<CheckAnswer> {
  return api.op<CheckAnswer>(target, 'console.compliance.check', { body, signal });
}

export async function ruleSets(api: Api, target: Target, signal?: AbortSignal): Promise<RuleSetRec[]> {
  const page = await search(api, target, 'rule_sets', { ...emptySearch(1000), ordering: [{ field: 'name', direction: 'asc' }] }, signal);
  return page.items as unknown as RuleSetRec[];
}

export async function rules(api: Api, target: Target, signal?: AbortSignal): Promise<RuleRec[]> {
  const page = await search(api, target, 'rules', { ...emptySearch(1000), ordering: [{ field: 'name', direction: 'asc' }], relations: ['rule_sets'] }, signal);
  return page.items as unknown as RuleRec[];
}

export function saveQuery(api: Api, target: Target, id: string, query: string): Promise<Rec> {
  return updateRecord(api, target, 'rules', { id, query });
}
