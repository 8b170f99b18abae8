// Incidents from compliance violations, through the store's write path (its hooks, and the outbox
// of a snapshot, so a check's incidents are changes to push): one finding type per rule
// (`software_compliance` true, the rule's id in `identifier.software_compliance_rule`), one
// incident per (asset, rule) with an occurrence of event type `software_compliance_source`.
// Created once: when the asset and rule already have an incident (any status), its occurrence is
// updated (end_occurrence, the software found) and nothing is created. All in one transaction.
import { nowTs } from '../../../src-shared/time';
import type { WriteContext } from '../api';
import type { Store } from '../store';
import { findingsKind, incidentsKind, occurrencesKind } from '../kinds/index';
import { type CheckRun, incidentsOf, pairKey, type PlannedRule, type Violation, violationsToRaise } from './check';
import { assetAddress, latestOccurrence, softwareByRid } from './reads';

export const COMPLIANCE_EVENT_TYPE = 'software_compliance_source';
/** Risk level of a rule's finding type when it is made (the analyst may change it there). */
export const DEFAULT_RISKLEVEL = 5;
/** Software named in an incident's analysis output, at most. */
const NAMED_SOFTWARE = 20;

const FINDINGS = findingsKind.resource;
const INCIDENTS = incidentsKind.resource;
const OCCURRENCES = occurrencesKind.resource;

function findingText(rule: PlannedRule): { title: string; description: string } {
  const kind = rule.blacklist_entry ? 'blacklist: the software must not be installed' : 'whitelist: matching software must be installed';
  return { title: rule.name, description: `Software compliance rule "${rule.name}" (${kind}); query: ${rule.query}` };
}

function analysisOf(v: Violation, names: Map<number, string>): string {
  const head = `rule: ${v.rule.name} (${v.rule.blacklist_entry ? 'blacklist' : 'whitelist'})\nquery: ${v.rule.query}`;
  if (!v.software.length) return `${head}\nno installed software matches the query`;
  const listed = v.software.slice(0, NAMED_SOFTWARE).map((rid) => names.get(rid) ?? String(rid));
  const more = v.software.length > NAMED_SOFTWARE ? `; and ${v.software.length - NAMED_SOFTWARE} more` : '';
  return `${head}\ninstalled software matching the query (${v.software.length}): ${listed.join('; ')}${more}`;
}

export interface RaiseProgress {
  done: number;
  total: number;
}

/** Creates (or updates) the incidents of the check's violations; answers the counts. */
export function raiseIncidents(store: Store, run: CheckRun, ctx: WriteContext = {}, onProgress?: (p: RaiseProgress) => void): { created: number; updated: number } {
  const violations = violationsToRaise(run);
  if (!violations.length) return { created: 0, updated: 0 };
  return store.tx(() => {
    const now = nowTs();
    const { findingOf, byPair } = incidentsOf(store, run.plan);
    const rids = [...new Set(violations.flatMap((v) => v.software.slice(0, NAMED_SOFTWARE)))].sort((a, b) => a - b);
    const names = new Map(softwareByRid(store, rids).map((s) => [s.rid, s.version ? `${s.name} ${s.version}` : s.name]));
    // The rules' finding types: made when missing, kept in step with the rule's name and query.
    const findingId = new Map<string, { id: string; risk: number }>();
    for (const rule of new Map(violations.map((v) => [v.rule.id, v.rule])).values()) {
      const text = findingText(rule);
      const have = findingOf.get(rule.id);
      if (have) {
        if (have.title !== text.title || have.description !== text.description) store.update(FINDINGS, { id: have.id, ...text }, ctx);
        findingId.set(rule.id, { id: have.id, risk: have.fallback_raw_risklevel ?? DEFAULT_RISKLEVEL });
        continue;
      }
      const made = store.create(
        FINDINGS,
        {
          ...text,
          type: 'software_compliance',
          category: 'software_compliance',
          software_compliance: true,
          local: true,
          identifier: { software_compliance_rule: rule.id },
          fallback_raw_risklevel: DEFAULT_RISKLEVEL,
        },
        ctx,
      );
      findingId.set(rule.id, { id: made.id as string, risk: DEFAULT_RISKLEVEL });
    }
    let created = 0;
    let updated = 0;
    violations.forEach((v, i) => {
      const analysis = analysisOf(v, names);
      const existing = byPair.get(pairKey(v.asset.id, v.rule.id));
      if (existing) {
        const occurrence = latestOccurrence(store, existing.id, COMPLIANCE_EVENT_TYPE);
        if (occurrence) store.update(OCCURRENCES, { id: occurrence.id, end_occurrence: now }, ctx);
        else {
          const made = store.create(OCCURRENCES, occurrenceOf(store, v, existing.id, now), ctx);
          store.update(INCIDENTS, { id: existing.id, last_occurrence_id: made.id as string, c_occurrence_count: (existing.c_occurrence_count ?? 0) + 1 }, ctx);
        }
        if (existing.analysis_output !== analysis) store.update(INCIDENTS, { id: existing.id, analysis_output: analysis }, ctx);
        updated++;
      } else {
        const finding = findingId.get(v.rule.id)!;
        const incident = store.create(
          INCIDENTS,
          {
            service_asset_id: v.asset.id,
            finding_id: finding.id,
            title: v.rule.name,
            description: findingText(v.rule).description,
            status: 'new',
            risklevel: finding.risk,
            alert_type: 'automatic',
            analysis_output: analysis,
          },
          ctx,
        );
        const occurrence = store.create(OCCURRENCES, occurrenceOf(store, v, incident.id as string, now), ctx);
        store.update(INCIDENTS, { id: incident.id as string, last_occurrence_id: occurrence.id as string, c_occurrence_count: 1 }, ctx);
        created++;
      }
      if (onProgress && (i % 100 === 99 || i === violations.length - 1)) onProgress({ done: i + 1, total: violations.length });
    });
    return { created, updated };
  });
}

function occurrenceOf(store: Store, v: Violation, incidentId: string, now: string) {
  const addr = assetAddress(store, v.asset.id);
  return {
    event_type: COMPLIANCE_EVENT_TYPE,
    service_asset_finding_id: incidentId,
    start_occurrence: now,
    end_occurrence: now,
    ...(addr?.ip ? { ip: addr.ip } : {}),
    ...(addr?.mac ? { mac: addr.mac } : {}),
    ...(addr?.fqdn ? { fqdn: addr.fqdn } : {}),
  };
}
