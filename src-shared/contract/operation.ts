// The API contract's vocabulary: one declaration per HTTP operation (method, path, schemas of
// every part of the request and of each answer, operationId, words for people). The server
// registers its routes from these, the OpenAPI document and the typed client derive from them.
import { z } from 'zod';
import type { GenericOp } from './resources';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Where an API lives: the prefix its paths start with (the server registers each as a plugin). */
export const API_BASES = {
  v2: '/cruddy/v2',
  cm: '/cm/api/v2',
  public: '/data/public/api/v1',
  console: '/console/v1',
} as const;

/** An answer with a body in media types other than JSON, or with none. */
export interface MediaAnswer {
  description: string;
  /** Media type → schema of the body; absent: no body. */
  content?: Record<string, z.ZodType>;
  /** Response headers worth naming. */
  headers?: Record<string, { description: string; schema: z.ZodType }>;
}

export type Answer = z.ZodType | MediaAnswer;

export const isMediaAnswer = (a: Answer): a is MediaAnswer => !(a instanceof z.ZodType);

/** A request and its answer, taken from the demo data (the server answers it so on a demo database). */
export interface OperationExample {
  summary?: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  status: number;
  answer?: unknown;
  /** The answer's media type, when it is not JSON. */
  mediaType?: string;
  /**
   * Requests sent first to set the scene, each answered 2xx (e.g. changes made offline in a
   * snapshot before its push); part of the replay, not of the document.
   */
  before?: ExampleStep[];
}

/** A request of an example's scene: a path of the main port (with its query), sent as is. */
export interface ExampleStep {
  method: HttpMethod;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface OperationDef {
  /** Stable, unique: `<resource or area>.<operation>`, e.g. `service_asset_findings.search`. */
  operationId: string;
  method: HttpMethod;
  /** The path as OpenAPI writes it, parameters in braces: `/cruddy/v2/rules/{id}`. */
  path: string;
  tag: string;
  summary: string;
  description: string;
  params?: z.ZodObject;
  query?: z.ZodType;
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** The body in other media types than application/json (an upload); replaces `body` in the document. */
  bodyContent?: Record<string, z.ZodType>;
  /** Whether a body must be sent (default: when `body` is not optional). */
  bodyRequired?: boolean;
  responses: Readonly<Record<number, Answer>>;
  /** Documented and served, but by the server's rewrite of another operation's path (aliases). */
  aliasOf?: string;
  /** A named endpoint of a record kind served instead of the kind's generic operation of this name. */
  replaces?: GenericOp;
  /** Servers other than the main port that serve this operation. */
  servers?: readonly ('main' | 'routing')[];
  deprecated?: boolean;
  example?: OperationExample;
}

/** Keeps the literal types of a declaration (so handlers and the client are typed by it). */
export const defineOperation = <const T extends OperationDef>(op: T): T => op;

/** The path as a router writes it: `{id}` becomes `:id`. */
export const routerPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

/** Fills a path's parameters (encoded). */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`path parameter ${name} is missing`);
    return encodeURIComponent(v);
  });
}

/** `service_asset_findings` → `ServiceAssetFindings` (schema names). */
export const pascal = (name: string): string =>
  name
    .split(/[_\s-]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');

/** A factory run once (declarations with named schemas must exist once: names are unique). */
export function once<T>(make: () => T): () => T {
  let v: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      v = make();
      made = true;
    }
    return v as T;
  };
}

/**
 * `op` with `parts` made on first read and kept (schemas cost to build: a server registers its
 * routes without them and builds each when its route is first asked for, or the document is
 * made). The made value replaces the getter, so every reader sees one and the same object.
 */
export function lazily<const T extends object, const L extends Record<string, () => unknown>>(op: T, parts: L): T & { [K in keyof L]: ReturnType<L[K]> } {
  for (const [key, make] of Object.entries(parts)) {
    Object.defineProperty(op, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = make();
        Object.defineProperty(op, key, { value, configurable: true, enumerable: true, writable: true });
        return value;
      },
    });
  }
  return op as T & { [K in keyof L]: ReturnType<L[K]> };
}

/** Whether `op[key]` is still to be made (a part `lazily` defined and nobody has read yet). */
export const isPending = (op: object, key: string): boolean => typeof Object.getOwnPropertyDescriptor(op, key)?.get === 'function';
