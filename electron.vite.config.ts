import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const r = (p: string) => resolve(__dirname, p);

export default defineConfig({
  main: {
    build: {
      outDir: r('out/main'),
      rollupOptions: {
        // Worker threads' entries: the store's readers, and the import's own thread
        // (src-main/transfer/import-thread.ts finds import-worker.js beside the code).
        input: {
          index: r('src-main/index.ts'),
          cli: r('src-main/cli.ts'),
          reader: r('src-main/store/reader/reader.ts'),
          'import-worker': r('src-main/transfer/import-worker.ts'),
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
    plugins: [react()],
    build: {
      outDir: r('out/renderer'),
      emptyOutDir: true,
      minify: true,
      sourcemap: false,
      rollupOptions: { input: { index: r('src-renderer/index.html') } },
    },
  },
});
