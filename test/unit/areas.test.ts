// Route areas named by their paths (server/areas.ts): built on their first request, holding
// exactly their paths, and no route of the port's app may answer one of those paths.
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { LazyAreas } from '../../src-main/server/areas';
import { createBaseApp } from '../../src-main/server/base';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

function port(): { app: FastifyInstance; areas: LazyAreas } {
  const areas = new LazyAreas(() => createBaseApp());
  const app = createBaseApp();
  areas.install(app);
  apps.push(app);
  return { app, areas };
}

describe('route areas named by paths', () => {
  it('builds an area on its first request and answers its exact and lower paths there', async () => {
    const { app, areas } = port();
    let built = 0;
    areas.addPaths(
      'files',
      [
        { path: '/' },
        { path: '/page.html' },
        { path: '/assets', under: true },
      ],
      async (area) => {
        built++;
        area.get('/', async () => ({ at: 'root' }));
        area.get('/page.html', async () => ({ at: 'page' }));
        area.get('/assets/:file', async (req) => ({ at: (req.params as { file: string }).file }));
      },
    );
    app.get('/other', async () => ({ at: 'port' }));
    await app.ready();
    expect((await app.inject({ url: '/other' })).json()).toEqual({ at: 'port' });
    expect(built).toBe(0);
    expect((await app.inject({ url: '/' })).json()).toEqual({ at: 'root' });
    expect((await app.inject({ url: '/page.html' })).json()).toEqual({ at: 'page' });
    expect((await app.inject({ url: '/assets/a.js' })).json()).toEqual({ at: 'a.js' });
    expect(built).toBe(1);
    // 405 with Allow from the area's own routes; a path below an exact path is the port's 404.
    const put = await app.inject({ method: 'PUT', url: '/page.html' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD');
    expect((await app.inject({ url: '/page.html/x' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/assets-x' })).statusCode).toBe(404);
  });

  it('builds an area ahead of its first request when asked to build it ahead for a path of it, once', async () => {
    const { app, areas } = port();
    let built = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    areas.addPaths('api', [{ path: '/api', under: true }], async (area) => {
      built++;
      await gate;
      area.get('/api/search', async () => ({ at: 'search' }));
    });
    await app.ready();
    areas.buildAhead('/elsewhere');
    expect(built).toBe(0);
    areas.buildAhead('/api/search');
    areas.buildAhead('/api/other');
    // A request arriving while the area is being built waits for that build.
    const answer = app.inject({ url: '/api/search' });
    release();
    expect((await answer).json()).toEqual({ at: 'search' });
    areas.buildAhead('/api/search');
    expect((await app.inject({ url: '/api/search' })).json()).toEqual({ at: 'search' });
    expect(built).toBe(1);
  });

  it('builds an area after another has sent its first answer when asked to build it after that one', async () => {
    const { app, areas } = port();
    const built: string[] = [];
    let release: () => void = () => {};
    const slow = new Promise<void>((r) => (release = r));
    areas.addPaths('first', [{ path: '/first' }], async (area) => {
      built.push('first');
      area.get('/first', async () => {
        await slow;
        return { at: 'first' };
      });
    });
    areas.addPaths('next', [{ path: '/next' }], (area) => {
      built.push('next');
      area.get('/next', async () => ({ at: 'next' }));
    });
    areas.addPaths('later', [{ path: '/later' }], (area) => {
      built.push('later');
      area.get('/later', async () => ({ at: 'later' }));
    });
    await app.ready();
    areas.buildAfter('/next', '/first');
    areas.buildAfter('/elsewhere', '/first');
    const first = app.inject({ url: '/first' });
    // The first area is built and its answer being made: the next one waits for that answer.
    await new Promise((r) => setTimeout(r, 50));
    expect(built).toEqual(['first']);
    release();
    expect((await first).json()).toEqual({ at: 'first' });
    await new Promise((r) => setTimeout(r, 50));
    expect(built).toEqual(['first', 'next']);
    // Once the first has answered, an area asked to follow it is built at once.
    areas.buildAfter('/later', '/first');
    await new Promise((r) => setTimeout(r, 50));
    expect(built).toEqual(['first', 'next', 'later']);
    expect((await app.inject({ url: '/next' })).json()).toEqual({ at: 'next' });
  });

  it('refuses a route of the port that could answer a path of an area', async () => {
    const { app, areas } = port();
    areas.addPaths('export', [{ path: '/console/v1/export', under: true }], () => {});
    areas.addPaths('index', [{ path: '/index.html' }], () => {});
    expect(() => app.get('/console/v1/export/tickets', async () => ({}))).toThrow(/route area export/);
    expect(() => app.get('/console/v1/:what', async () => ({}))).toThrow(/route area export/);
    expect(() => app.get('/console/*', async () => ({}))).toThrow(/route area export/);
    expect(() => app.get('/:file', async () => ({}))).toThrow(/route area index/);
    app.get('/console/v1/exports', async () => ({}));
    app.get('/index.html/more', async () => ({}));
    await app.ready();
  });

  it('answers 500 when an area registers a route outside its paths, and refuses two areas sharing a path', async () => {
    const { app, areas } = port();
    areas.addPaths('jobs', [{ path: '/jobs', under: true }], (area) => {
      area.get('/jobs', async () => ({}));
      area.get('/elsewhere', async () => ({}));
    });
    expect(() => areas.addPaths('again', [{ path: '/jobs' }], () => {})).toThrow();
    await app.ready();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const r = await app.inject({ url: '/jobs' });
      expect(r.statusCode).toBe(500);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.join('\n')).toMatch(/route area jobs could not be built: the route \/elsewhere lies outside/);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
