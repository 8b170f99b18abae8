// Messages: copied from the origin with each page of incidents (through their incident), and
// kept up to date by a pull after the incidents and their status changes they name.
import { messages } from '../../../src-shared/resources/messages';
import type { KindModule } from './types';

export const messagesKind: KindModule = {
  resource: messages,
  sync: { list: { key: messages.name, order: 5, relatedBy: 'service_asset_finding_id' } },
};
