// Writes schema/schema.graphql from the Pothos schema (part of `npm run generate`).
import { writeFileSync } from 'node:fs';
import { printedSchema } from '../src/module-list.js';

writeFileSync(new URL('../schema/schema.graphql', import.meta.url), printedSchema());
console.log('✔ Printed schema/schema.graphql');
