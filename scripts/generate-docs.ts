// The generated parts of the docs (scripts/docs-pages.ts), written by generate-composed.ts (part of `npm run generate`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedDocs, repositoryRoot } from './docs-pages.js';

/** Writes every generated page, its REST tables from `openapi` (the document the app serves). */
export async function writeGeneratedDocs(openapi: Record<string, unknown>): Promise<void> {
  const pages = await generatedDocs(openapi);
  for (const [file, content] of pages) writeFileSync(file, content);
  console.log(`✔ Wrote the generated parts of docs/ (${[...pages.keys()].map((f) => path.relative(repositoryRoot, f)).join(', ')})`);
}
