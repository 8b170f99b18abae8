// Names for user uuids: the people directory of each database (per instance, so the routing
// port serves it per instance like the other console reads), and the local analyst of this
// server (the uuid the console sends as Pgr-User-Id).
import type { FastifyInstance } from 'fastify';
import { consoleOperations } from '../../../src-shared/contract/index';
import { addPerson, listPeople, localAnalyst, removePerson, renameAnalyst } from '../../store/people';
import type { Store } from '../../store/store';
import { serve } from '../contract';
import type { ApiDeps } from '../deps';

export const PEOPLE_URL = '/console/v1/people';
export const ME_URL = '/console/v1/me';

/** The directory of one instance's database. */
export function registerPeople(app: FastifyInstance, deps: ApiDeps): void {
  const ops = consoleOperations();
  serve(app, ops.people_list, async () => ({ items: listPeople(deps.store()) }));
  serve(app, ops.people_add, async (req, reply) => reply.code(201).send(addPerson(deps.store(), req.body)));
  serve(app, ops.people_remove, async (req) => {
    removePerson(deps.store(), req.params.id);
    return { id: req.params.id.toLowerCase() };
  });
}

/** The local analyst, kept with the main database. */
export function registerMe(app: FastifyInstance, store: () => Store): void {
  const ops = consoleOperations();
  serve(app, ops.me_get, async () => localAnalyst(store()));
  serve(app, ops.me_update, async (req) => renameAnalyst(store(), req.body.name));
}
