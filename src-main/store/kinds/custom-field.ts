// Custom fields: copied from the origin before the incidents whose values they define.
import { customFields } from '../../../src-shared/resources/custom_fields';
import type { KindModule } from './types';

export const customFieldsKind: KindModule = {
  resource: customFields,
  sync: { list: { key: customFields.name, order: 2 } },
};
