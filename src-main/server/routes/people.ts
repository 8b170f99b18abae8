// Names for user uuids: the people directory of each database (per instance, so the routing
// port serves it per instance like the other console reads), and the local analyst of this
// server (the uuid the console sends as Pgr-User-Id).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { analystPatchSchema, peopleAnswerSchema, personInputSchema, personSchema } from '../../../src-shared/schemas/people';
import { addPerson, listPeople, localAnalyst, removePerson, renameAnalyst } from '../../store/people';
import type { Store } from '../../store/store';
import type { ApiDeps } from '../deps';
import { errors } from './resources';

export const PEOPLE_URL = '/console/v1/people';
export const ME_URL = '/console/v1/me';

/** The directory of one instance's database. */
export function registerPeople(app: FastifyInstance, deps: ApiDeps): void {
  const z_ = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['console'];
  z_.get(PEOPLE_URL, {
    schema: { tags, summary: 'People of this database: names for the user uuids of its records', response: { 200: peopleAnswerSchema, ...errors(401, 500) } },
    handler: async () => ({ items: listPeople(deps.store()) }),
  });
  z_.post(PEOPLE_URL, {
    schema: { tags, summary: 'Add a person to the directory', body: personInputSchema, response: { 201: personSchema, ...errors(400, 401, 409, 500) } },
    handler: async (req, reply) => reply.code(201).send(addPerson(deps.store(), req.body)),
  });
  z_.delete(`${PEOPLE_URL}/:id`, {
    schema: { tags, summary: 'Remove a person from the directory', params: z.object({ id: z.string() }), response: { 200: z.object({ id: z.string() }), ...errors(401, 404, 500) } },
    handler: async (req) => {
      removePerson(deps.store(), req.params.id);
      return { id: req.params.id.toLowerCase() };
    },
  });
}

/** The local analyst, kept with the main database. */
export function registerMe(app: FastifyInstance, store: () => Store): void {
  const z_ = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['console'];
  z_.get(ME_URL, {
    schema: { tags, summary: 'The local analyst: name and uuid (sent as Pgr-User-Id, the subject of tokens)', response: { 200: personSchema, ...errors(401, 500) } },
    handler: async () => localAnalyst(store()),
  });
  z_.put(ME_URL, {
    schema: { tags, summary: "Rename the local analyst", body: analystPatchSchema, response: { 200: personSchema, ...errors(400, 401, 500) } },
    handler: async (req) => renameAnalyst(store(), req.body.name),
  });
}
