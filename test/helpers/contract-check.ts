// Checks an answer against the served OpenAPI document: the operation is found by method and
// path template, its answer for that status (or `default`) must be declared with the answer's
// media type, and a JSON body must validate against the declared schema. Schemas are validated
// by @hyperjump/json-schema's OpenAPI 3.1 dialect; routed answers (the routing port, and
// /console/v1/route/<path> on the main port) are checked as envelopes whose `data` is checked
// against the routed operation's answer for the instance's status.
import { registerSchema, validate, type Validator } from '@hyperjump/json-schema/openapi-3-1';

type Json = Record<string, unknown>;

const DOC_URI = 'https://radar-console.test/openapi.json';
const ROUTE_PREFIX = '/console/v1/route';

interface Op {
  method: string;
  template: string;
  re: RegExp;
  params: number;
  responses: Record<string, Json>;
}

const pointer = (...tokens: string[]): string => tokens.map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

export class ContractCheck {
  private readonly ops: Op[] = [];
  private readonly validators = new Map<string, Promise<Validator>>();
  /** Answers written once under components.responses, which operations refer to. */
  private readonly shared: Record<string, Json>;

  private constructor(doc: Json) {
    this.shared = ((doc.components as Json | undefined)?.responses ?? {}) as Record<string, Json>;
    for (const [template, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      const params = (template.match(/\{[^}]+\}/g) ?? []).length;
      const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object' || !('responses' in op)) continue;
        this.ops.push({ method: method.toUpperCase(), template, re, params, responses: op.responses as Record<string, Json> });
      }
    }
    // Literal paths before templated ones (`/x/_meta` before `/x/{id}`).
    this.ops.sort((a, b) => a.params - b.params);
  }

  private static loaded: Promise<ContractCheck> | undefined;

  /** One document per process (the documents of servers differ only in their `servers`). */
  static load(fetchDoc: () => Promise<Json>): Promise<ContractCheck> {
    ContractCheck.loaded ??= fetchDoc().then(async (doc) => {
      registerSchema(doc as Parameters<typeof registerSchema>[0], DOC_URI, 'https://spec.openapis.org/oas/3.1/schema-base');
      const check = new ContractCheck(doc);
      await check.validator(pointer('components', 'schemas', 'Error'));
      return check;
    });
    return ContractCheck.loaded;
  }

  private validator(fragment: string): Promise<Validator> {
    let v = this.validators.get(fragment);
    if (!v) this.validators.set(fragment, (v = validate(`${DOC_URI}#/${fragment}`)));
    return v;
  }

  private async validateAt(fragment: string, value: unknown): Promise<string[]> {
    const out = (await this.validator(fragment))(value as never, 'BASIC');
    if (out.valid) return [];
    return (out.errors ?? []).slice(0, 8).map((e) => `${e.instanceLocation}: ${e.absoluteKeywordLocation.replace(`${DOC_URI}#`, '')}`);
  }

  find(method: string, path: string): Op | undefined {
    return this.ops.find((op) => op.method === method && op.re.test(path));
  }

  /** Problems of one answer (empty: it matches the document). */
  /**
   * `ours(id)` tells whether an instance is served by this server (the main or a local
   * database): only their answers inside an envelope are held to this document.
   */
  async check(method: string, url: string, status: number, contentType: string | null, body: unknown, routed: boolean, ours: () => Promise<(id: string) => boolean>): Promise<string[]> {
    const path = url.split('?')[0]!;
    if (routed) return this.checkRouted(method, path, status, body, await ours());
    if (path.startsWith(`${ROUTE_PREFIX}/`)) {
      // The routed path as written, or as the one {path} parameter with its slashes encoded.
      const routed = path.slice(ROUTE_PREFIX.length);
      const decoded = /%2f/i.test(routed) && !routed.slice(1).includes('/') ? routed.replace(/%2f/gi, '/') : routed;
      return this.checkRouted(method, decoded, status, body, await ours());
    }
    return this.checkDirect(method, path, status, contentType, body);
  }

  private async checkDirect(method: string, path: string, status: number, contentType: string | null, body: unknown): Promise<string[]> {
    const op = this.find(method === 'HEAD' ? 'GET' : method, path);
    // The console's static shell (HTML, scripts, styles, the reference page) is not the API.
    if (!op && status < 400 && !(contentType ?? '').includes('json')) return [];
    if (!op) {
      // No operation: an error of the server's own (unknown path, wrong method, refused Host).
      if (status < 400) return [`${method} ${path}: ${status} for a path the document does not have`];
      return this.validateAt(pointer('components', 'schemas', 'Error'), body);
    }
    const key = String(status) in op.responses ? String(status) : 'default' in op.responses ? 'default' : undefined;
    if (!key) return [`${method} ${op.template}: status ${status} is not declared`];
    if (method === 'HEAD') return [];
    // A shared answer (`$ref` to components.responses) is checked where it is written.
    const ref = typeof op.responses[key]!.$ref === 'string' ? (op.responses[key]!.$ref as string).replace('#/components/responses/', '') : undefined;
    const answer = ref ? this.shared[ref]! : op.responses[key]!;
    const at = ref ? ['components', 'responses', ref] : ['paths', op.template, op.method.toLowerCase(), 'responses', key];
    const content = answer.content as Record<string, Json> | undefined;
    const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!content) return body === undefined || body === '' ? [] : [`${method} ${op.template} ${status}: a body where the document declares none`];
    if (!(type in content)) return [`${method} ${op.template} ${status}: media type ${type || '(none)'} is not declared (${Object.keys(content).join(', ')})`];
    if (!type.includes('json')) return [];
    const problems = await this.validateAt(pointer(...at, 'content', type, 'schema'), body);
    return problems.map((p) => `${method} ${op.template} ${status}: ${p}`);
  }

  /** An envelope (or the routing's own error), each element's `data` checked as the instance's answer. */
  private async checkRouted(method: string, path: string, status: number, body: unknown, ours: (id: string) => boolean): Promise<string[]> {
    if (!Array.isArray(body)) {
      if (status < 400) return [`routed ${method} ${path}: ${status} without an envelope`];
      return this.validateAt(pointer('components', 'schemas', 'Error'), body);
    }
    const problems: string[] = [];
    for (const el of body as Json[]) {
      problems.push(...(await this.validateAt(pointer('components', 'schemas', 'RoutedAnswer'), el)).map((p) => `routed ${method} ${path} element: ${p}`));
      if (!ours(String(el.id))) continue;
      const code = typeof el.status_code === 'number' ? el.status_code : 0;
      // Unreachable or timed-out instances carry the routing's own error.
      const data = el.data;
      const inner = await this.checkDirect(method, path, code, data === null && code < 300 ? null : 'application/json', data === null ? undefined : data);
      problems.push(...inner.map((p) => `routed to ${String(el.name)}: ${p}`));
    }
    return problems;
  }
}
