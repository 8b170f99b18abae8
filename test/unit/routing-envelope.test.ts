// The routing envelope is written from the instances' answers as they came: a JSON answer's bytes
// are spliced in unparsed (multi-byte text included), other data is serialised.
import { describe, expect, it } from 'vitest';
import { RawJson, serializeElements } from '../../src-main/server/routing';

const el = (id: string, data: unknown, status = 200) => ({ id, name: `Инсталляция ${id}`, data, error: status === 200 ? 0 : status, status_code: status, time: '2026-11-26 10:00:00.000000', version: '1' });

describe('the routing envelope', () => {
  it('splices JSON answers byte for byte and serialises the rest, in order', () => {
    const body = { objects: [{ title: 'Сканирование портов — web-01', risk: 7.5 }], total: 1 };
    const bytes = Buffer.from(`  ${JSON.stringify(body)}\n`);
    const out = serializeElements([el('a', new RawJson(bytes)), el('b', { error: 'нет ответа', error_code: 502 }, 502), el('c', null)]);
    expect(Buffer.isBuffer(out)).toBe(true);
    expect(out.includes(bytes)).toBe(true);
    const parsed = JSON.parse(out.toString('utf8')) as { id: string; name: string; data: unknown; status_code: number }[];
    expect(parsed.map((e) => [e.id, e.name, e.status_code])).toEqual([
      ['a', 'Инсталляция a', 200],
      ['b', 'Инсталляция b', 502],
      ['c', 'Инсталляция c', 200],
    ]);
    expect(parsed[0]!.data).toEqual(body);
    expect(parsed[1]!.data).toEqual({ error: 'нет ответа', error_code: 502 });
    expect(parsed[2]!.data).toBeNull();
  });

  it('writes an empty list as []', () => {
    expect(serializeElements([]).toString()).toBe('[]');
  });

  it('reads a raw answer back as JSON when it must be looked into', () => {
    expect(new RawJson(Buffer.from('{"total": 3}')).toJSON()).toEqual({ total: 3 });
  });
});
