// Custom field values: the update ignores related entities and timestamps on input and answers
// them null; pushed with the fields the platform's update requires.
import { customFieldValues } from '../../../src-shared/resources/custom_field_values';
import type { KindModule } from './types';

export const customFieldValuesKind: KindModule = {
  resource: customFieldValues,
  operations: {
    'custom_field_values.update': {
      handle({ store, body: raw, userId }) {
        const { created_at: _c, updated_at: _u, ...body } = raw;
        const updated = store.update(customFieldValues, body, { userId });
        return { ...updated, custom_field: null, service_asset_finding: null };
      },
    },
  },
  sync: {
    list: { key: customFieldValues.name, order: 6, relatedBy: 'service_asset_finding_id' },
    updateRequires: ['created_at', 'updated_at', 'custom_field_id', 'service_asset_finding_id'],
  },
};
