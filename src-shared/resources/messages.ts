import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Messages: comments and notifications on incidents and assets. */
export const messages: ResourceDef = {
  name: K.messages,
  table: K.messages,
  title: { en: 'Messages', ru: 'Сообщения' },
  label: 'subject',
  fields: {
    subject: f.str(),
    body: f.str(),
    service_asset_id: f.ref(K.serviceAssets),
    service_asset_finding_id: f.ref(K.incidents, 'cascade'),
    service_asset_finding_status_change_id: f.ref(K.statusChanges),
    automated: f.bool({ default: false }),
    finding_id: f.ref(K.findings),
    itsm_sync_status: f.str(),
    itsm_last_synced_at: f.ts(),
    itsm_sync_error: f.str(),
    sender_id: f.str(),
  },
  relations: {
    service_asset: rel.belongsTo(K.serviceAssets, 'service_asset_id'),
    service_asset_finding: rel.belongsTo(K.incidents, 'service_asset_finding_id'),
    service_asset_finding_status_change: rel.belongsTo(K.statusChanges, 'service_asset_finding_status_change_id'),
    finding: rel.belongsTo(K.findings, 'finding_id'),
  },
};
