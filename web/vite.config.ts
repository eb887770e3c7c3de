import { defineConfig } from 'vite';

/**
 * The console's build (docs/console.md): served by the service under /app, hashed file names
 * under /app/assets (cached for a year; index.html is never cached). `web/build.ts` runs it for
 * `npm start`, the tests and the stack, so no one builds by hand.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts or data: module preloads: the page's Content-Security-Policy allows neither.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rollupOptions: {
      // TanStack Query marks its modules "use client" (for React Server Components); meaningless in this bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
