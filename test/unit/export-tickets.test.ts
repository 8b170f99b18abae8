// The download tickets' rules on a clock of their own: once, before expiry, a refusal that does
// not use a ticket up, a running download cancelled, old ones forgotten.
import { describe, expect, it } from 'vitest';
import { ExportTickets, maskTicket } from '../../src-main/server/export-tickets';

const REQ = { resource: 'service_asset_findings', format: 'ndjson' } as const;

describe('ExportTickets', () => {
  it('takes a ticket once, before it expires', () => {
    let now = 1_000_000;
    const t = new ExportTickets(60_000, () => now);
    const a = t.issue(REQ);
    const b = t.issue(REQ);
    expect(a.ticket).not.toBe(b.ticket);
    expect(a.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.id).not.toBe(a.ticket);
    expect(t.redeem('nope')).toEqual({ ok: false, why: 'unknown' });
    expect(t.redeem(a.ticket)).toEqual({ ok: true, id: a.id, request: REQ });
    expect(t.redeem(a.ticket)).toEqual({ ok: false, why: 'used' });
    now += 60_001;
    expect(t.redeem(b.ticket)).toEqual({ ok: false, why: 'expired' });
    expect(t.view(b.id)!.state).toBe('expired');
  });

  it('follows a download and cancels a running one through its stop()', () => {
    const t = new ExportTickets(60_000);
    const a = t.issue(REQ);
    const r = t.redeem(a.ticket);
    expect(r.ok).toBe(true);
    let stopped = 0;
    t.started(a.id, { filename: 'x.ndjson', total: 10, expected: 10, stop: () => stopped++ });
    t.progress(a.id, 4, 400);
    expect(t.view(a.id)).toMatchObject({ state: 'running', rows: 4, bytes: 400, filename: 'x.ndjson', total: 10 });
    expect(t.cancel(a.id)!.state).toBe('cancelled');
    expect(stopped).toBe(1);
    // The connection's close that follows changes nothing.
    t.finish(a.id, 'done');
    expect(t.view(a.id)!.state).toBe('cancelled');
  });

  it('forgets finished downloads after ten minutes', () => {
    let now = 0;
    const t = new ExportTickets(60_000, () => now);
    const a = t.issue(REQ);
    t.redeem(a.ticket);
    t.finish(a.id, 'done');
    now += 9 * 60_000;
    t.issue(REQ);
    expect(t.view(a.id)).toBeDefined();
    now += 2 * 60_000;
    t.issue(REQ);
    expect(t.view(a.id)).toBeUndefined();
    expect(t.redeem(a.ticket)).toEqual({ ok: false, why: 'unknown' });
  });

  it('masks tickets in logged URLs', () => {
    expect(maskTicket('/console/v1/export?ticket=abc_DEF-1&x=1')).toBe('/console/v1/export?ticket=***&x=1');
    expect(maskTicket('/console/v1/export?a=1&Ticket=zz')).toBe('/console/v1/export?a=1&Ticket=***');
  });
});
