// The document's examples of creates can be sent again (from the reference's "try it", say): they
// carry no id, the server makes one, so the same example sent twice on a new demo server makes two
// records; only a unique field of the resource (a rule's name) may refuse the second, with 409
// naming that field, never the id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_EXAMPLES } from '../../src-shared/contract/examples';
import { findOperation } from '../../src-shared/contract/index';
import { fillPath } from '../../src-shared/contract/operation';
import { startTestServer, type TestServer } from '../helpers/server';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ seed: 'demo', scan: { ports: [], timeoutMs: 100, budgetMs: 1000 } });
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

/** Creates: the operations that make records (data-management creates, the incident create, people). */
const creates = Object.entries(DEMO_EXAMPLES).filter(([id, ex]) => (/\.(create|mass_create)$|^console\.people\.add$/.test(id) && ex.status === 201) || id === 'public.incidents.create');

const ids = (v: unknown): string[] => {
  if (Array.isArray(v)) return v.flatMap(ids);
  if (!v || typeof v !== 'object') return [];
  const o = v as Record<string, unknown>;
  return [...(typeof o.id === 'string' ? [o.id] : []), ...(typeof o.Id === 'string' ? [o.Id] : []), ...ids(o.items), ...ids(o.ServiceAssetFindingDBFields)];
};

describe('examples of creates, sent twice', () => {
  it('there are examples of every kind of create', () => {
    expect(creates.length).toBeGreaterThan(50);
  });

  it('carry no id of the record to create', () => {
    expect(creates.filter(([, ex]) => ids(ex.body).length > 0).map(([id]) => id)).toEqual([]);
  });

  it('make a new record each time, or are refused only for a unique field other than the id', async () => {
    const problems: string[] = [];
    for (const [id, ex] of creates) {
      const op = findOperation(id)!;
      const url = fillPath(op.path, ex.params);
      const made: string[] = [];
      for (const round of [1, 2]) {
        const res = await srv.call(op.method, url, ex.body, ex.headers ?? {}, srv.main, { check: false });
        if (res.status >= 200 && res.status < 300) {
          const answer = Array.isArray(res.body) ? res.body[0]?.data : res.body;
          made.push(...(answer?.items ? ids(answer.items) : typeof answer?.id === 'string' ? [answer.id] : []));
        } else if (!(round === 2 && res.status === 409 && Array.isArray(res.body?.extra?.fields) && !res.body.extra.fields.includes('id'))) {
          problems.push(`${id} (send ${round}): ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
      if (new Set(made).size !== made.length) problems.push(`${id}: the same id twice`);
    }
    expect(problems).toEqual([]);
  }, 300_000);
});
