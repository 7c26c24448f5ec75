import { defineConfig } from 'vite';

// The page is built into dist/web, which `faultline launch` serves.
export default defineConfig({
  root: 'web',
  base: '/',
  build: { outDir: '../dist/web', emptyOutDir: true, target: 'es2022' },
});
