// Writes the generated parts of the docs (scripts/docs-pages.ts); part of `npm run generate`.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedDocs, repositoryRoot } from './docs-pages.js';

const pages = await generatedDocs();
for (const [file, content] of pages) writeFileSync(file, content);
console.log(`✔ Wrote the generated parts of docs/ (${[...pages.keys()].map((f) => path.relative(repositoryRoot, f)).join(', ')})`);
