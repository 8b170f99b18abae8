import { f, rel } from './fields';
import type { ResourceDef } from './types';

/** Messages: comments and notifications on incidents and assets. */
export const messages: ResourceDef = {
  name: 'messages',
  table: 'messages',
  title: { en: 'Messages', ru: 'Сообщения' },
  label: 'subject',
  fields: {
    subject: f.str(),
    body: f.str(),
    service_asset_id: f.ref('service_assets'),
    service_asset_finding_id: f.ref('service_asset_findings', 'cascade'),
    service_asset_finding_status_change_id: f.ref('service_asset_finding_status_changes'),
    automated: f.bool({ default: false }),
    finding_id: f.ref('findings'),
    itsm_sync_status: f.str(),
    itsm_last_synced_at: f.ts(),
    itsm_sync_error: f.str(),
    sender_id: f.str(),
  },
  relations: {
    service_asset: rel.belongsTo('service_assets', 'service_asset_id'),
    service_asset_finding: rel.belongsTo('service_asset_findings', 'service_asset_finding_id'),
    service_asset_finding_status_change: rel.belongsTo('service_asset_finding_status_changes', 'service_asset_finding_status_change_id'),
    finding: rel.belongsTo('findings', 'finding_id'),
  },
};
