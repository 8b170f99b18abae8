// Active actions of correlation rules: the user header first, then the body, with the spec's
// texts in its order; the author is set by the server from Pgr-User-Id.
import { badRequest, ERR } from '../../../src-shared/errors';
import { getResource } from '../../../src-shared/resources/index';
import { K } from '../../../src-shared/resources/kinds';
import { engineGoRulesIntegrationActions } from '../../../src-shared/resources/engine_go_rules_integration_actions';
import { integrationScripts } from '../../../src-shared/resources/integration_scripts';
import { isUuid } from '../../../src-shared/schemas/common';
import type { KindModule } from './types';

const R = engineGoRulesIntegrationActions;

export const integrationActionsKind: KindModule = {
  resource: R,
  operations: {
    'engine_go_rules_integration_actions.create': {
      status: 201,
      preValidation(headers) {
        const uid = headers['pgr-user-id'];
        if (uid === undefined || uid === '') throw badRequest(ERR.missingUidHeader);
        if (typeof uid !== 'string' || !isUuid(uid)) throw badRequest(ERR.uidNotUuid);
      },
      handle({ store, body, headers }) {
        const uid = headers['pgr-user-id'] as string;
        if (!store.exists(getResource(K.engineGoRule), body.rule_id)) throw badRequest(ERR.ruleNotFound);
        if (!store.exists(integrationScripts, body.integration_script_id)) throw badRequest(ERR.scriptNotFound);
        // user_id is read-only for clients: the server sets it from Pgr-User-Id, with the create.
        return store.create(R, body, { userId: uid, serverSet: { user_id: uid } });
      },
    },
  },
};
