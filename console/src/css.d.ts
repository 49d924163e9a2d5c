// The stylesheet main.tsx imports for its side effect: esbuild bundles it (scripts/console-build.mjs).
declare module '*.css';
