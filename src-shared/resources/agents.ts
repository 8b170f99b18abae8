import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

export const AGENT_STATUSES = ['online', 'offline', 'error'] as const;

/**
 * Collection agents. Configuration edits land in `pending_config`; apply_config publishes them
 * (pending becomes `config`, `config_version` + 1, `applied_at` now).
 */
export const agents: ResourceDef = {
  name: K.agent,
  table: K.agent,
  title: { en: 'Collection agents', ru: 'Агенты сбора' },
  label: 'name',
  apis: ['cm'],
  fields: {
    name: f.str({ required: true, notNull: true }),
    hostname: f.str(),
    ip: f.str(),
    os: f.str(),
    version: f.str(),
    status: f.str({ enum: AGENT_STATUSES, default: 'offline' }),
    last_seen_at: f.ts(),
    config: f.obj({ default: {} }),
    pending_config: f.obj(),
    config_version: f.int({ default: 0, readOnly: true }),
    applied_at: f.ts({ readOnly: true }),
  },
  relations: {
    [K.inputSource]: rel.manyToMany(K.inputSource, 'input_source_agents', 'agent_id', 'input_source_id'),
  },
};
