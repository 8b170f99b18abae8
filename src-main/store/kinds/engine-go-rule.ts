// Correlation rules: the search that also marks the rules read as reloaded.
import { engineGoRules } from '../../../src-shared/resources/engine_go_rules';
import type { KindModule, NamedOperation } from './types';

const search: NamedOperation = {
  handle({ store, runner, body, userId }) {
    return store.tx(() => {
      const res = runner.search(engineGoRules, body);
      // The rules read are reloaded: the flag cleared through the write path (hooks, outbox),
      // updated_at kept (reading a rule does not change it).
      const ids = res.items.filter((it) => it.reload === true && typeof it.id === 'string').map((it) => it.id as string);
      if (ids.length) store.updateSet(engineGoRules, ids, { reload: false }, { userId, touch: false });
      return res;
    });
  },
};

export const engineGoRulesKind: KindModule = {
  resource: engineGoRules,
  operations: { 'engine_go_rules.search': search, 'engine_go_rules.search_with_update_reload': search },
};
