// The compliance workbench's API, per instance (the routing port serves it for each instance):
// PostgreSQL's text search for the `simple` configuration (to_tsvector, to_tsquery, `@@`) on
// texts, queries and the database's software, and the check of rule sets against the software
// installed on the assets of their asset groups, with the incidents of its violations.
import {
  checkAnswerSchema,
  checkRequestSchema,
  matchAnswerSchema,
  matchRequestSchema,
  tsqueryAnswerSchema,
  tsqueryRequestSchema,
  tsvectorAnswerSchema,
  tsvectorRequestSchema,
} from '../schemas/compliance';
import { errorAnswers } from './common';
import { API_BASES, defineOperation, lazily, once } from './operation';

const C = `${API_BASES.console}/compliance`;
const tag = 'compliance';

export const complianceOperations = once(() => ({
  tsvector: defineOperation(
    lazily(
      {
        operationId: 'console.compliance.tsvector',
        method: 'POST',
        path: `${C}/tsvector`,
        tag,
        summary: "to_tsvector('simple', text) of texts",
        description:
          "Each text as PostgreSQL 15's `to_tsvector('simple', text)` makes it (the default parser's tokens, lower-cased, with positions), printed as PostgreSQL prints a tsvector (`'adobe':1 'photoshop':2`). A software record without a stored tsvector is matched by `to_tsvector('simple', name || ' ' || version)`. A text PostgreSQL would refuse (over 1 MB of lexemes) is 400.",
      },
      {
        body: () => tsvectorRequestSchema,
        responses: () => ({ 200: tsvectorAnswerSchema, ...errorAnswers(400, 401, 413, 500) }),
      },
    ),
  ),
  tsquery: defineOperation(
    lazily(
      {
        operationId: 'console.compliance.tsquery',
        method: 'POST',
        path: `${C}/tsquery`,
        tag,
        summary: "to_tsquery('simple', query) of rule queries",
        description:
          "Whether PostgreSQL accepts each query as `to_tsquery('simple', query)` (what rules/create and rules/update accept), and its normalised form (`openssh-server` becomes `'openssh-server' <-> 'openssh' <-> 'server'`); a refused query answers PostgreSQL's message and the position where reading stopped. A query without any word is accepted with PostgreSQL's notice and matches nothing.",
      },
      {
        body: () => tsqueryRequestSchema,
        responses: () => ({ 200: tsqueryAnswerSchema, ...errorAnswers(400, 401, 413, 500) }),
      },
    ),
  ),
  match: defineOperation(
    lazily(
      {
        operationId: 'console.compliance.match',
        method: 'POST',
        path: `${C}/match`,
        tag,
        summary: 'vector @@ query: texts, tsvectors, software, or the matching software of the database',
        description:
          "With one list (`texts`, `tsvectors` or `software_ids`), whether each matches the query, as PostgreSQL's `@@` answers. Without a list, the database's software the query matches: the count of all matches (`total`) and one page (`limit`, default 50; `offset`), each record with the vector it was matched by (its stored `tsvector`, else to_tsvector of name and version) and the number of assets it is installed on. " +
          'The database’s software vectors are kept in memory (built on first use, kept in step with the data), so a query over 1,000,000 records answers in a fraction of a second. A query PostgreSQL refuses is 400 with its message and position; an unknown software id is 400.',
      },
      {
        body: () => matchRequestSchema,
        responses: () => ({ 200: matchAnswerSchema, ...errorAnswers(400, 401, 413, 500, 503) }),
      },
    ),
  ),
  check: defineOperation(
    lazily(
      {
        operationId: 'console.compliance.check',
        method: 'POST',
        path: `${C}/check`,
        tag,
        summary: 'Check rule sets against the software installed on their assets',
        description:
          'Each rule of each rule set on each asset of the set’s asset groups (`service_asset_ids` narrows to some of them, `rule_ids` to some rules): a whitelist rule (`blacklist_entry` false) is satisfied when some installed software matches its query, a blacklist rule when none does. Each result names the software that decided it and the incident of its asset and rule, if any. The summary counts every result, by rule too, and reports the incidents: how many violations have none yet, open incidents whose violation is gone (they stay open: closing is the analyst’s choice), and closed ones whose violation persists. ' +
          '`queries` checks draft versions of rules’ queries without saving them. With `create_incidents`, each violation on a set with `create_service_asset_findings` becomes an incident (a finding type per rule with `software_compliance` true, an occurrence with `event_type` `software_compliance_source`), once: when the asset and rule already have an incident, its occurrence is updated and none is created. The writes go through the write path in one transaction (in a snapshot, they are changes to push). ' +
          'Results come by asset (name order), a page of assets at a time with `limit` and `offset` (default: all), filtered by `verdict`.',
      },
      {
        body: () => checkRequestSchema,
        responses: () => ({ 200: checkAnswerSchema, ...errorAnswers(400, 401, 409, 413, 500, 503) }),
      },
    ),
  ),
}));
