// Occurrences: created with every field required (the contract's schema), answered with their
// incident, status change, vulnerabilities and first correlation result.
import { occurrences } from '../../../src-shared/resources/occurrences';
import type { KindModule } from './types';

export const occurrencesKind: KindModule = {
  resource: occurrences,
  operations: {
    'occurrences.create': {
      status: 201,
      handle({ store, body, userId }) {
        return store.tx(() => {
          const created = store.create(occurrences, body, { userId });
          const full = store.get(occurrences, created.id as string, ['service_asset_finding', 'service_asset_finding_status_change', 'vulnerabilities', 'engine_go_results']);
          const results = (full.engine_go_results as unknown[]) ?? [];
          const { engine_go_results: _drop, ...rest } = full;
          return { ...rest, engine_go_result: results[0] ?? null };
        });
      },
    },
  },
};
