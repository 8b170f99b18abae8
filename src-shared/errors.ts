// One error shape for every non-2xx answer: {error, error_code} (+ extra.fields on 409).

/** The spec's own error texts (platform-api.md, Errors), used verbatim. */
export const ERR = {
  badRequest: 'Bad Request',
  noAuthHeader: 'no auth header',
  badAuth: 'invalid credentials',
  notFound: 'not found',
  internal: 'Internal Server Error',
  idEmpty: 'id is empty',
  idNotUuid: 'id should be uuid format',
  emptyIps: 'empty ips',
  emptyIp: 'empty IP address',
  missingUidHeader: 'missing uid header',
  uidNotUuid: 'Pgr-User-Id should be uuid format',
  emptyRuleId: 'empty rule_id',
  ruleIdNotUuid: 'rule_id should be uuid format',
  emptyScriptId: 'empty integration_script_id',
  scriptIdNotUuid: 'integration_script_id should be uuid format',
  ruleNotFound: 'rule not found',
  scriptNotFound: 'integration script not found',
  invalidQuery: 'invalid query',
  nameEmpty: 'name should not be empty',
  ruleSetsBad: 'incorrect relation identifiers for rule_sets',
  tooLong: 'exceeded maximum length for a value',
  missingModelId: 'missing model id',
  badModelId: 'invalid model id: incorrect uuid',
  nameUsed: 'name_already_used',
  groupFieldEmpty: 'group_field should not be empty',
  invalidField: 'invalid field',
  relatedData: 'related data exists',
  forbiddenHost: 'forbidden host',
} as const;

/** Texts that are answered exactly as written, without a field path in front. */
export const VERBATIM_TEXTS: ReadonlySet<string> = new Set(Object.values(ERR));

export interface ErrorBody {
  error: string;
  error_code: number;
  extra?: { fields: string[] };
}

export class ApiError extends Error {
  readonly status: number;
  readonly extra?: { fields: string[] };
  constructor(status: number, message: string, extra?: { fields: string[] }) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.extra = extra;
  }
  toBody(): ErrorBody {
    return errorBody(this.status, this.message, this.extra);
  }
}

/**
 * Longest error text answered. Messages may quote the input (a field or resource name, a
 * value); whatever was sent, the quote is cut here, so an error answer stays small.
 */
export const MAX_ERROR_TEXT = 500;

/** A text cut to `max` characters (an ellipsis marks the cut). */
export function clip(text: string, max: number = MAX_ERROR_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function errorBody(status: number, message: string, extra?: { fields: string[] }): ErrorBody {
  const error = clip(message);
  return extra ? { error, error_code: status, extra: { fields: extra.fields.map((f) => clip(f, 100)).slice(0, 50) } } : { error, error_code: status };
}

export const badRequest = (message: string): ApiError => new ApiError(400, message);
export const notFound = (message: string = ERR.notFound): ApiError => new ApiError(404, message);
export const conflict = (message: string, fields: string[]): ApiError => new ApiError(409, message, { fields });

/** Per-object result codes of mass operations (contract.md §2). */
export const MASS = { ok: 0, relatedData: 11001, storage: 11002, nothingAffected: 11003, notUuid: 12012 } as const;
