// The platform's entities: every other file in this folder is one definition (its default export).
// Adding an entity: `npm run cli -- entity new <slug>` writes a file here; then `npm run db:entities -- <name>`
// (docs/api/entities.md). Loaded and sanitized once; a bad definition stops the server with the reasons.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type EntityDefinition } from '../entity-definition.js';
import { sanitizeEntities } from '../sanitize-entities.js';

const folder = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(folder)
  .filter((name) => /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') && !/^index\.(ts|js)$/.test(name) && !name.includes('.test.'))
  .sort();

const loaded = await Promise.all(files.map(async (name) => ((await import(new URL(name, import.meta.url).href)) as { default: unknown }).default));

/** The sanitized definitions, in file-name order. */
export const entityDefinitions: readonly EntityDefinition[] = sanitizeEntities(loaded);

const bySlug = new Map(entityDefinitions.map((d) => [d.slug, d]));

/** The definition of entity `slug` (REST's /api/v1/<slug>), or undefined when none is configured. */
export const entityNamed = (slug: string): EntityDefinition | undefined => bySlug.get(slug);
