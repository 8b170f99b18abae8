import fs from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';

const r = (p: string) => resolve(__dirname, p);

/**
 * Fastify's own dependencies, required from node_modules by the bundled Fastify (below); semver
 * is the exception, resolved to src-main/server/semver-on-use.ts.
 */
const fastifyDeps = Object.keys((JSON.parse(fs.readFileSync(r('node_modules/fastify/package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies).filter(
  (d) => d !== 'semver',
);

/** The API reference's renderer (Scalar's standalone bundle), copied beside the console: served at /reference/, never from a CDN. */
const referenceBundle = {
  name: 'radar-reference-bundle',
  closeBundle() {
    fs.mkdirSync(r('out/reference'), { recursive: true });
    fs.copyFileSync(r('node_modules/@scalar/api-reference/dist/browser/standalone.js'), r('out/reference/scalar.js'));
  },
};

/**
 * The desktop app's own package description (out/desktop/package.json): Electron starts the app
 * of a folder from its `main`, and the package's `main` is the typed client, so the desktop app
 * is started from this folder (`electron out/desktop`) under the package's name and version.
 */
const desktopEntry = {
  name: 'radar-desktop-entry',
  closeBundle() {
    const pkg = JSON.parse(fs.readFileSync(r('package.json'), 'utf8')) as { name: string; version: string; description?: string };
    fs.mkdirSync(r('out/desktop'), { recursive: true });
    const desc = { name: pkg.name, version: pkg.version, description: pkg.description, private: true, main: '../main/index.js' };
    fs.writeFileSync(r('out/desktop/package.json'), `${JSON.stringify(desc, null, 2)}\n`);
  },
};

/**
 * The application's code, loaded by the console's entry once it has asked the first page
 * (src-renderer/src/main.tsx): announced in index.html (modulepreload) with every chunk it
 * imports, so the browser downloads and parses them while the entry runs instead of after it
 * (asked by the entry's import, they came one round trip after the application's own chunk).
 */
const preloadApplication: Plugin = {
  name: 'radar-preload-application',
  transformIndexHtml: {
    order: 'post',
    handler(_html, ctx) {
      const entry = ctx.chunk;
      const bundle = ctx.bundle;
      if (!entry || !bundle) return [];
      const start = entry.dynamicImports.find((f) => /\/start-[^/]+\.js$/.test(f));
      if (!start) return [];
      // The application's chunk and, depth first, the chunks it imports statically; those the
      // entry imports itself are loaded already.
      const have = new Set([entry.fileName, ...entry.imports]);
      const files: string[] = [];
      const visit = (f: string) => {
        if (have.has(f)) return;
        have.add(f);
        const c = bundle[f];
        if (c?.type === 'chunk') for (const i of c.imports) visit(i);
        files.push(f);
      };
      visit(start);
      return files.map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${f}` }, injectTo: 'head' as const }));
    },
  },
};

export default defineConfig({
  main: {
    plugins: [desktopEntry],
    resolve: { alias: { semver: r('src-main/server/semver-on-use.ts') } },
    build: {
      outDir: r('out/main'),
      // zod is bundled, not required from node_modules: its package loads every locale of its
      // error messages (tens of ms at each start); bundled, only what the code uses is kept. Its
      // Fastify adapter is bundled with it so that both share one zod (one registry of metadata).
      // Fastify's own files are bundled too (its dependencies stay in node_modules), so that the
      // semver its plugin checks use loads on first use instead of at every start.
      externalizeDeps: { exclude: ['zod', 'fastify-type-provider-zod', 'fastify'], include: fastifyDeps },
      rollupOptions: {
        // Worker threads' entries: the store's readers, and the import's own thread
        // (src-main/transfer/import-thread.ts finds import-worker.js beside the code).
        input: {
          index: r('src-main/index.ts'),
          cli: r('src-main/cli.ts'),
          reader: r('src-main/store/reader/reader.ts'),
          'import-worker': r('src-main/transfer/import-worker.ts'),
          // the typed client scripts import as `radar-console/client` (its types: tsconfig.client.json)
          client: r('src-shared/client/index.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: r('out/preload'),
      rollupOptions: { input: { index: r('src-main/preload/index.ts') } },
    },
  },
  renderer: {
    root: r('src-renderer'),
    plugins: [react(), referenceBundle, preloadApplication],
    build: {
      outDir: r('out/renderer'),
      emptyOutDir: true,
      minify: true,
      sourcemap: false,
      // The console is read from the local disk (the desktop app) or the loopback server, never
      // over a slow network: a main bundle of about 1.2 MB is fine, and the warning meant for sites
      // would only be noise on every `npm start`.
      chunkSizeWarningLimit: 3000,
      rollupOptions: { input: { index: r('src-renderer/index.html') } },
    },
  },
});
