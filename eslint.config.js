// Lint: typescript-eslint's recommended rules, plus the import boundaries of DESIGN.md ("who may import
// what"), so that the architecture is checked, not remembered.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const restrict = (files, patterns) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});
const up = '^(\\.\\./)+';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'dist.*/**', 'src/generated/**', 'client/src/generated/**', 'console/src/generated/graphql/**', 'client/dist/**', '.data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  // No import cycles in src/ (DESIGN.md): a module that needs another's work is wired through the
  // module list (src/modules/index.ts), not by importing back. Type-only imports carry no runtime order.
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      // The files a cycle runs through are parsed as TypeScript (without this they are skipped, silently).
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  { files: ['**/*.test.ts', 'src/testkit/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  // schema.ts: the builder, its own service and inputs; never a repository, the database or Prisma.
  restrict(['src/modules/*/schema.ts'], [
    { regex: '(^\\./|/)repository(\\.js)?$', message: 'schema.ts talks to its service, never to a repository (DESIGN.md).' },
    { regex: `${up}(db|generated/prisma|rest)/`, message: 'schema.ts reaches the database only through its service (DESIGN.md).' },
    { regex: `^\\.\\./(?!\\.\\.)[^/]+/`, message: 'schema.ts imports its own module only (DESIGN.md).' },
  ]),
  // service.ts: own repository, shared, config, another module's service; database types only.
  restrict(['src/modules/*/service.ts'], [
    { regex: '^\\.\\./[^/]+/(repository|schema|rest)(\\.js)?$', message: "A service may call another module's service, never its repository or edges (DESIGN.md)." },
    { regex: `${up}(graphql|rest|generated)/`, message: 'Services know nothing of GraphQL, REST or generated code (DESIGN.md).' },
    { regex: `${up}db/`, allowTypeImports: true, message: 'Services use the database through their repository; only types from db/ (DESIGN.md).' },
  ]),
  // repository.ts: db and generated Prisma only.
  restrict(['src/modules/*/repository.ts'], [
    { regex: `${up}(graphql|rest|auth|config|shared|modules)/`, message: 'A repository imports db/ and generated Prisma only (DESIGN.md).' },
    { regex: '^\\.\\./[^/.]+/', message: "A repository never imports another module (DESIGN.md)." },
    { regex: '^\\./(?!repository)', message: 'A repository imports db/ and generated Prisma only (DESIGN.md).' },
  ]),
  // rest.ts: rest/, generated documents, and its own module's zod inputs (shared by both faces).
  restrict(['src/modules/*/rest.ts'], [
    { regex: `${up}(graphql|db|auth|config|shared|modules|generated/prisma)/`, message: 'rest.ts declares routes over rest/ and generated documents only (DESIGN.md).' },
    { regex: '^\\./(service|repository|schema)(\\.js)?$', message: 'REST never calls a service directly: it runs the GraphQL operation (DESIGN.md).' },
    { regex: '^\\.\\./[^/.]+/', message: 'rest.ts imports no other module (DESIGN.md).' },
  ]),
  // entities/rest.ts declares its routes per entity definition at start-up, so it reads the definitions'
  // types (config/, types only); its documents, query-string parser and answer mapping are its own
  // module's files (rest-documents, list-params, rest-bodies, rest-answers). Otherwise the rule above.
  restrict(['src/modules/entities/rest.ts'], [
    { regex: `${up}(graphql|db|auth|shared|modules|generated/prisma)/`, message: 'rest.ts declares routes over rest/ and generated documents only (DESIGN.md).' },
    { regex: `${up}config/`, allowTypeImports: true, message: 'entities/rest.ts reads the definitions\' types only (DESIGN.md).' },
    { regex: '^\\./(service|repository|schema)(\\.js)?$', message: 'REST never calls a service directly: it runs the GraphQL operation (DESIGN.md).' },
    { regex: '^\\.\\./[^/.]+/', message: 'rest.ts imports no other module (DESIGN.md).' },
  ]),
  // The environment is read in config/ only (DESIGN.md): everything else receives what config/ made of
  // it. Tests and the testkit read their own settings (TEST_DATABASE_URL, CHROMIUM_PATH…).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config/**', 'src/testkit/**', '**/*.test.ts'],
    rules: { 'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Only src/config/ reads process.env (DESIGN.md).' }] },
  },
  // config/: nothing of ours but shared/ (entity definitions import config's own entity-definition.ts),
  // and the generated Prisma client's types (the transaction a hook's system access gets).
  restrict(['src/config/*.ts'], [
    { regex: `^\\.\\./(?!shared/|generated/prisma/)`, message: 'config/ imports nothing of ours but shared/ (DESIGN.md).' },
    { regex: `^\\.\\./generated/`, allowTypeImports: true, message: 'config/ takes only types from generated code (DESIGN.md).' },
  ]),
  restrict(['src/config/entities/*.ts'], [
    // Definitions import entity-definition.ts (defineEntity); index.ts sanitizes them (sanitize-entities.ts).
    { regex: `^\\.\\./(?!(entity-definition|sanitize-entities)\\.js$)`, message: 'config/ imports nothing of ours but shared/ (DESIGN.md).' },
  ]),
  // shared/: named concepts, no dependencies on the layers above them (types excepted).
  restrict(['src/shared/**/*.ts'], [
    { regex: `^\\.\\./(?!shared/)`, allowTypeImports: true, message: 'shared/ depends on no other layer (DESIGN.md).' },
  ]),
);
