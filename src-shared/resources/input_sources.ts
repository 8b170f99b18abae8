import { z } from 'zod';
import { f, rel } from './fields';
import type { ResourceDef } from './types';
import { K } from './kinds';

/** Log input sources (spec: InputSource). */
export const inputSources: ResourceDef = {
  name: K.inputSource,
  table: K.inputSource,
  title: { en: 'Input sources', ru: 'Источники событий' },
  label: 'name',
  fields: {
    trace_id: f.uuid({ required: true, description: 'action trace id for audit (required on create)' }),
    name: f.str({ required: true, notNull: true }),
    source_type: f.str(),
    vendor: f.str(),
    display_name: f.str(),
    port: f.int({ min: 1000, max: 9999, description: 'exactly four digits' }),
    is_active: f.bool({ default: true }),
    check_min: f.bool({ default: false }),
    check_max: f.bool({ default: false }),
    no_raw: f.bool({ default: false }),
    check_min_value: f.int(),
    check_max_value: f.int(),
    input_type: f.str(),
    pipelines: f.arr({ schema: z.array(z.looseObject({})), default: [] }),
  },
  relations: {
    [K.agent]: rel.manyToMany(K.agent, 'input_source_agents', 'input_source_id', 'agent_id'),
    [K.serviceAsset]: rel.manyToMany(K.serviceAsset, 'input_source_service_assets', 'input_source_id', 'service_asset_id'),
  },
};
