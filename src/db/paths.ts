// Where the Prisma schema and its migrations live, independent of the working directory.
import { fileURLToPath } from 'node:url';

export const schemaDir = fileURLToPath(new URL('../../prisma', import.meta.url));
export const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
