// Software compliance rules: created and updated with the spec's validation (the declaration's
// checks), answered with their rule sets; pushed with their name and query in every update and
// an audit trace id.
import { rules } from '../../../src-shared/resources/rules';
import { relatedIds } from '../relations';
import type { KindModule, NamedOperation } from './types';

const update: NamedOperation = {
  handle({ store, body, userId }) {
    const updated = store.update(rules, body, { userId });
    // Spec: related entities in the answer of this update are null.
    return { ...updated, rule_sets: null, _relations: { rule_sets: relatedIds(store, rules, 'rule_sets', JSON.stringify([updated.id])).get(updated.id as string) ?? [] } };
  },
};

export const rulesKind: KindModule = {
  resource: rules,
  operations: {
    'rules.create': {
      status: 201,
      handle({ store, body, userId }) {
        const created = store.create(rules, body, { userId });
        return store.get(rules, created.id as string, ['rule_sets']);
      },
    },
    'rules.update': update,
    'rules.update_post': update,
  },
  sync: { updateRequires: ['name', 'query'], traceId: true },
};
