// In-page probes of `bench:console`, as JavaScript text (functions compiled by tsx carry helpers
// the page lacks).
//
// Every time the probes note is read from the document's own clock (performance.now() of the
// page, counting from navigation start), the clock the browser stamps its long tasks with. The
// bench sets the page's date with Playwright's clock, which replaces performance.now() (and
// events' timeStamp) by a fake one counting from when the clock was installed on the context,
// not from the document's navigation start: long tasks compared with it fell outside every
// view. NETWORK_PROBE therefore keeps the real performance.now() as window.__now, and must be
// installed before the clock (an init script added earlier runs earlier).

export const NETWORK_PROBE = `(() => {
  const perf = window.performance;
  const real = typeof Performance === 'function' && perf instanceof Performance;
  const now = real ? perf.now.bind(perf) : () => perf.now();
  window.__now = now;
  const net = { inflight: 0, pending: new Set(), log: [], long: [], realClock: real, observer: null };
  window.__net = net;
  const orig = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const req = typeof input === 'object' && input && 'url' in input ? input : null;
    const url = req ? req.url : String(input);
    const method = (init && init.method) || (req && req.method) || 'GET';
    const body = init && typeof init.body === 'string' ? init.body : null;
    const e = { url, method, body, start: now(), headers: null, end: null, status: 0 };
    net.log.push(e);
    net.inflight++;
    net.pending.add(e);
    let done = false;
    const finish = () => { if (!done) { done = true; e.end = now(); net.inflight--; net.pending.delete(e); } };
    return orig(input, init).then((res) => {
      e.status = res.status;
      e.headers = now();
      for (const m of ['json', 'text', 'arrayBuffer', 'blob']) {
        const read = res[m].bind(res);
        res[m] = () => read().then((v) => { finish(); return v; }, (err) => { finish(); throw err; });
      }
      if (!res.body) finish();
      return res;
    }, (err) => { finish(); throw err; });
  };
  // Long tasks: delivered to the observer some time after they end; takeLong() also takes the
  // ones not delivered yet.
  const keep = (entries) => { for (const x of entries) net.long.push({ start: x.startTime, duration: x.duration }); };
  try {
    net.observer = new PerformanceObserver((list) => keep(list.getEntries()));
    net.observer.observe({ type: 'longtask', buffered: true });
  } catch {}
  net.takeLong = () => { if (net.observer) keep(net.observer.takeRecords()); return net.long; };
})()`;

/** Records when the first loaded incident row is on screen (the frame after it appears). */
export const FIRST_ROWS_PROBE = `(() => {
  const seen = () => document.querySelector('table[aria-label="Incidents"] tbody tr[data-loaded="true"]');
  const done = () => requestAnimationFrame(() => { window.__firstRows = window.__now(); });
  const obs = new MutationObserver(() => { if (seen()) { obs.disconnect(); done(); } });
  document.addEventListener('DOMContentLoaded', () => {
    if (seen()) done();
    else obs.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-loaded'] });
  });
})()`;

/**
 * The view probe. arm(o) starts watching: the moment the list's query changes is the first
 * trusted input event of o.trigger after it (a click, Enter in a field, a select's change), or
 * mark() for a change made by the address (mark(0): navigation start). From then on, each animation frame checks whether the
 * view is shown: at least one request sent since, none in flight, the header's total shown (and,
 * for a grouped view, the groups; for an opened group, its rows). The view's time is the first
 * frame of the run of frames in which that holds, once it has held for o.quietMs with no request
 * sent (a request sent meanwhile starts the wait again). Requests matching o.ignore (the console's
 * periodic checks of its instances' health and of the sync state, which run whatever the view)
 * are not waited for; they are listed in the waterfall. wait() resolves with the time, what the
 * page showed, the requests since the change (a waterfall) and the long tasks.
 */
export const VIEW_PROBE = `(() => {
  const net = window.__net;
  const now = window.__now;
  const digits = (s) => { const d = (s || '').replace(/[^0-9]/g, ''); return d === '' ? null : Number(d); };
  const shown = () => {
    const total = document.querySelector('[data-testid="total"]')?.textContent ?? '';
    const groupEls = [...document.querySelectorAll('[data-testid="group"]')];
    const groupsList = document.querySelector('.groups');
    let sum = 0;
    for (const g of groupEls) sum += digits(g.querySelector('[data-testid="group-count"]')?.textContent) ?? 0;
    const open = document.querySelector('.group.is-open');
    return {
      totalText: total,
      total: total.includes('…') ? null : digits(total),
      // A long grouped list draws the groups in view: its count and sum are on the list itself.
      groups: groupsList
        ? groupsList.dataset.groups && Number(groupsList.dataset.groups) !== groupEls.length
          ? { count: Number(groupsList.dataset.groups), sum: Number(groupsList.dataset.sum) }
          : { count: groupEls.length, sum }
        : null,
      openCount: open ? digits(open.querySelector('[data-testid="group-count"]')?.textContent) : null,
      openRows: open ? open.querySelectorAll('.group-rows tbody tr[data-loaded="true"]').length : 0,
      rows: document.querySelectorAll('table[aria-label="Incidents"] tbody tr[data-loaded="true"]').length,
      busy: document.querySelector('.dt')?.getAttribute('aria-busy') === 'true',
    };
  };
  let st = null;
  const onEvent = (ev) => {
    if (!st || st.t0 !== null || st.o.trigger !== ev.type) return;
    if (ev.type === 'keydown' && ev.key !== 'Enter') return;
    // The first listener of the event (capture, on the document): ev.timeStamp is on the fake clock.
    st.t0 = now();
  };
  for (const type of ['click', 'keydown', 'change']) document.addEventListener(type, onEvent, { capture: true });
  window.__view = {
    arm(o) {
      const armed = now();
      const s = { o, t0: null, since: null, resolve: null };
      const ignore = (o.ignore ?? []).map((x) => new RegExp(x));
      const counted = (e) => !ignore.some((re) => re.test(e.method + ' ' + e.url.replace(location.origin, '')));
      const inflight = () => { let n = 0; for (const e of net.pending) if (counted(e)) n++; return n; };
      s.promise = new Promise((r) => (s.resolve = r));
      st = s;
      const finish = (extra) => {
        st = null;
        const t0 = s.t0 ?? armed;
        const reqs = net.log.filter((e) => e.start >= t0).map((e) => ({ method: e.method, url: e.url.replace(location.origin, ''), body: e.body, start: e.start - t0, headers: e.headers === null ? null : e.headers - t0, end: e.end === null ? null : e.end - t0, status: e.status, background: !counted(e) }));
        const long = net.takeLong().filter((x) => x.start + x.duration >= t0).map((x) => ({ start: x.start - t0, duration: x.duration }));
        s.resolve({ ...extra, requests: reqs, long, shown: shown() });
      };
      const tick = () => {
        const t = now();
        if (s.t0 === null) {
          if (t - armed > o.timeoutMs) return finish({ error: 'the control was not used' });
          return requestAnimationFrame(tick);
        }
        const sent = net.log.filter((e) => e.start >= s.t0 && counted(e));
        const v = shown();
        const ok = sent.length > 0 && inflight() === 0 && v.total !== null && !v.busy &&
          (!o.groups || v.groups !== null) && (!o.expand || v.openRows > 0) && (!o.rows || v.rows > 0);
        if (!ok) s.since = null;
        else if (s.since === null || sent.some((e) => e.start > s.since)) s.since = t;
        if (s.since !== null && t - s.since >= o.quietMs) return finish({ ms: s.since - s.t0 });
        if (t - s.t0 > o.timeoutMs) return finish({ error: 'timed out after ' + o.timeoutMs + ' ms' });
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    mark(t) { if (st && st.t0 === null) st.t0 = t ?? now(); },
    wait() { return st ? st.promise : Promise.resolve({ error: 'not armed' }); },
    shown,
    inflight: (ignore) => { const res = (ignore ?? []).map((x) => new RegExp(x)); let n = 0; for (const e of net.pending) if (!res.some((re) => re.test(e.method + ' ' + e.url.replace(location.origin, '')))) n++; return n; },
  };
})()`;

/** Clicks a chip and resolves, in the frame after, when the table shows only rows of that
 * status and the total changed: the time from the click. */
export const MEASURE_FILTER = `(args) => new Promise((resolve, reject) => {
  const table = document.querySelector('table[aria-label="Incidents"]');
  const total = document.querySelector('[data-testid="total"]');
  const ok = () => {
    const rows = [...table.querySelectorAll('tbody tr[data-loaded="true"]')];
    if (!rows.length || total.textContent === args.previousTotal || total.textContent === '…') return false;
    if (args.status === null) return true;
    return rows.every((r) => r.querySelector('[data-status]')?.getAttribute('data-status') === args.status);
  };
  const timer = setTimeout(() => reject(new Error('the table did not change in 20 s (' + args.chip + ')')), 20000);
  const button = document.querySelector(args.chip);
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    if (!ok()) return;
    obs.disconnect();
    requestAnimationFrame(() => { clearTimeout(timer); resolve({ ms: performance.now() - t0, total: total.textContent ?? '' }); });
  });
  obs.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  button.click();
})`;

/** Chooses a time range and resolves, in the frame after, when the status chips show new
 * counts and the charts are drawn again: the time from the choice. */
export const MEASURE_CHARTS = `(args) => new Promise((resolve, reject) => {
  const select = document.querySelector('.range-control select');
  const chip = () => document.querySelector('[data-testid="count-status-new"]')?.textContent ?? '';
  const before = chip();
  const done = () => {
    const wrap = document.querySelector('.charts-wrap');
    const c = chip();
    return c !== '' && c !== '…' && c !== before && wrap && wrap.getAttribute('aria-busy') === 'false' && wrap.querySelector('.charts:not(.charts-placeholder)');
  };
  const timer = setTimeout(() => reject(new Error('the chips and charts did not change in 30 s (' + args.preset + ')')), 30000);
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    if (!done()) return;
    obs.disconnect();
    requestAnimationFrame(() => { clearTimeout(timer); resolve({ ms: performance.now() - t0, count: chip() }); });
  });
  obs.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  select.value = args.preset;
  select.dispatchEvent(new Event('change', { bubbles: true }));
})`;

export interface ScrollResult {
  frames: number;
  ms: number;
  maxGap: number;
  p99Gap: number;
  blankFrames: number;
  maxBlank: number;
  rowsScrolled: number;
}

/** Scrolls the incident table by rowsPerFrame rows each animation frame until rows rows are
 * passed, then waits (up to 10 s) for the last screen to fill. Per frame: the gap since the
 * previous frame, and whether the rows on screen include a loaded one (if not, it is blank). */
export const MEASURE_SCROLL = `(args) => new Promise((resolve) => {
  const el = document.querySelector('[data-testid="incidents-scroll"]');
  const head = 30;
  const height = el.clientHeight;
  const gaps = [];
  let blankFrames = 0, blankSince = null, maxBlank = 0, settling = 0;
  let last = performance.now();
  const t0 = last;
  const target = args.rows * args.rowHeight;
  let pos = 0;
  el.scrollTop = 0;
  const blank = () => {
    const first = Math.floor(pos / args.rowHeight);
    const lastRow = Math.floor((pos + height - head - 1) / args.rowHeight);
    for (const tr of el.querySelectorAll('tbody tr[data-loaded="true"]')) {
      const i = Number(tr.getAttribute('data-index'));
      if (i >= first && i <= lastRow) return false;
    }
    return true;
  };
  const frame = (now) => {
    gaps.push(now - last);
    last = now;
    if (blank()) { blankFrames++; if (blankSince === null) blankSince = now; }
    else if (blankSince !== null) { maxBlank = Math.max(maxBlank, now - blankSince); blankSince = null; }
    if (pos + args.rowHeight < target) {
      pos = Math.min(target, pos + args.rowsPerFrame * args.rowHeight);
      el.scrollTop = pos;
      requestAnimationFrame(frame);
      return;
    }
    if (blankSince !== null && settling++ < 600) { requestAnimationFrame(frame); return; }
    const sorted = gaps.slice(1).sort((a, b) => a - b);
    resolve({
      frames: gaps.length, ms: now - t0,
      maxGap: sorted[sorted.length - 1] ?? 0, p99Gap: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
      blankFrames, maxBlank, rowsScrolled: Math.round(pos / args.rowHeight),
    });
  };
  requestAnimationFrame((now) => { last = now; requestAnimationFrame(frame); });
})`;

export const call = (fn: string, args: unknown): string => `(${fn})(${JSON.stringify(args)})`;
