// Parts many operations share: the error answers, path ids, the relations query.
import { z } from 'zod';
import { ERR } from '../errors';
import { errorBodySchema, UUID_RE } from '../schemas/common';
import { envelopeOf } from '../schemas/routing';

/** What each error status means, for the answers' descriptions. */
const ERROR_TEXTS: Record<number, string> = {
  400: 'Bad request: a parameter of the wrong type, a missing required one, or a value the operation refuses. `error` says which.',
  401: 'No credentials (`no auth header`) or wrong ones: send `PgrApiKey` or `Authorization: Bearer <JWT>`.',
  403: 'Forbidden: the request names a Host that is not a loopback name.',
  404: 'Not found: the object (or instance) does not exist.',
  405: 'The path exists, but not with this method; `Allow` lists the methods it has.',
  409: 'Conflict: a unique value is taken or related records need this one; `extra.fields` names the fields.',
  413: 'The body is larger than the server takes (see its limits).',
  415: 'The body is of a media type the operation does not take.',
  500: 'Internal Server Error: no details are given.',
  502: 'The instance could not be reached.',
  503: 'The database is busy (an import is writing to it); try again shortly.',
  504: 'The instance did not answer in time.',
  508: 'Routing loop: the request was already routed by this server.',
};

/** The `{error, error_code}` answers an operation may give, each described. */
export function errorAnswers(...codes: number[]): Record<number, z.ZodType> {
  return Object.fromEntries(codes.map((c) => [c, errorBodySchema.describe(ERROR_TEXTS[c] ?? 'Error')]));
}

/** Errors of an operation the routing port serves: its own `{error, error_code}`, or the instance's inside the envelope. */
export function routedErrors(...codes: number[]): Record<number, z.ZodType> {
  return Object.fromEntries(
    codes.map((c) => [c, z.xor([errorBodySchema, envelopeOf(errorBodySchema).describe("the instance's error in the envelope")]).describe(ERROR_TEXTS[c] ?? 'Error')]),
  );
}

/** A uuid path parameter, with the platform's texts for an empty or malformed one. */
export const uuidParam = (what = 'object') =>
  z
    .string()
    .refine((s) => s.trim() !== '', ERR.idEmpty)
    .refine((s) => s.trim() === '' || UUID_RE.test(s), ERR.idNotUuid)
    .meta({ format: 'uuid', description: `identifier of the ${what}` });

export const idParams = (what?: string) => z.object({ id: uuidParam(what) });

/** `relations` of a GET by id. */
export const relationsQuerySchema = z.object({
  relations: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('links to load, comma-separated or repeated; absent: all links; present and empty: none'),
});

/** An answer with no body. */
export const emptyAnswer = (description: string) => ({ description });

/** The standard answer of a JSON object with no fields. */
export const emptyObjectSchema = z.strictObject({}).describe('no output parameters');
