// `npm run generate`, first step: entity definitions (src/config/entities) → prisma/entities.prisma,
// plus the back-relation fields Prisma needs on User and Team, written between the GENERATED
// markers of prisma/schema.prisma.
import { readFile, writeFile } from 'node:fs/promises';
import { entityDefinitions } from '../src/config/entities/index.js';
import { backRelations, entitiesPrisma } from '../src/modules/entities/prisma-model.js';

const schemaPath = new URL('../prisma/schema.prisma', import.meta.url);
const entitiesPath = new URL('../prisma/entities.prisma', import.meta.url);

function between(text: string, model: 'User' | 'Team', lines: string[]): string {
  const begin = `  // BEGIN GENERATED ${model} RELATIONS TO ENTITIES (npm run generate)`;
  const end = `  // END GENERATED ${model} RELATIONS TO ENTITIES`;
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start === -1 || stop < start) throw new Error(`prisma/schema.prisma: markers for ${model} missing ("${begin.trim()}" … "${end.trim()}")`);
  return `${text.slice(0, start + begin.length)}\n${lines.map((l) => `${l}\n`).join('')}${text.slice(stop)}`;
}

let schema = await readFile(schemaPath, 'utf8');
schema = between(schema, 'User', backRelations(entityDefinitions, 'User'));
schema = between(schema, 'Team', backRelations(entityDefinitions, 'Team'));
await writeFile(schemaPath, schema);
await writeFile(entitiesPath, entitiesPrisma(entityDefinitions));
console.log(`✔ Wrote prisma/entities.prisma (${entityDefinitions.map((d) => d.slug).join(', ')})`);
