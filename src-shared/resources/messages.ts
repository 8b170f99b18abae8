import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Messages: comments and notifications on incidents and assets. */
export const messages: ResourceDef = {
  name: K.message,
  table: K.message,
  title: { en: 'Messages', ru: 'Сообщения' },
  label: 'subject',
  fields: {
    subject: f.str(),
    body: f.str(),
    service_asset_id: f.ref(K.serviceAsset),
    service_asset_finding_id: f.ref(K.incident, 'cascade'),
    service_asset_finding_status_change_id: f.ref(K.statusChange),
    automated: f.bool({ default: false }),
    finding_id: f.ref(K.finding),
    itsm_sync_status: f.str(),
    itsm_last_synced_at: f.ts(),
    itsm_sync_error: f.str(),
    sender_id: f.str(),
  },
  relations: {
    service_asset: rel.belongsTo(K.serviceAsset, 'service_asset_id'),
    service_asset_finding: rel.belongsTo(K.incident, 'service_asset_finding_id'),
    service_asset_finding_status_change: rel.belongsTo(K.statusChange, 'service_asset_finding_status_change_id'),
    finding: rel.belongsTo(K.finding, 'finding_id'),
  },
};
