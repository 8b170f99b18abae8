// Agents: publishing the pending configuration (its version counted, the time it was applied).
import { badRequest, ERR, notFound } from '../../../src-shared/errors';
import { agents } from '../../../src-shared/resources/agents';
import { isUuid } from '../../../src-shared/schemas/common';
import { nowTs } from '../../../src-shared/time';
import type { KindModule } from './types';

export const agentsKind: KindModule = {
  resource: agents,
  operations: {
    'cm.agents.apply_config': {
      handle({ store, params, userId }) {
        const id = params.id;
        if (!id || id.trim() === '') throw badRequest(ERR.idEmpty);
        if (!isUuid(id)) throw badRequest(ERR.idNotUuid);
        store.tx(() => {
          const rec = store.find(agents, id);
          if (!rec) throw notFound();
          if (rec.pending_config === null) return;
          const at = nowTs();
          store.update(
            agents,
            { id, config: rec.pending_config as Record<string, unknown>, pending_config: null },
            { userId, at, serverSet: { config_version: ((rec.config_version as number | null) ?? 0) + 1, applied_at: at } },
          );
        });
        return undefined;
      },
    },
  },
};
