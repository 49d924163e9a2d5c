// `entity new <slug>`: writes a commented definition (src/config/entities/<slug>.ts) to start from, and
// says the one command that makes it real (`npm run db:entities -- add_<table>`: regenerate, then the
// migration). It reads no database.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { entityNaming } from '../config/entity-names.js';
import { Refusal, type Cli } from './open.js';

/** The definitions' source folder (not the build's): npm runs scripts from the project's root. */
const folder = () => path.resolve('src/config/entities');

/** The definition file of a new entity: every key it may need, explained, the rarer ones commented out. */
function template(slug: string, naming: ReturnType<typeof entityNaming>): string {
  const { name, table, pluralName } = naming;
  return `// ${name}: what one record of ${slug} holds, who may do what with them, and your rules (hooks).
// Every key: docs/api/entities.md; hooks: docs/api/hooks.md. After a change, run
//   npm run db:entities -- <what_changed>      (regenerates the schema, types and client, then writes the migration)
import { defineEntity } from '../entity-definition.js';

export default defineEntity({
  name: '${name}', // the GraphQL type; lists are \`${naming.graphqlList}\`, REST /api/v1/${slug}
${pluralName ? `  pluralName: '${pluralName}',\n` : ''}  slug: '${slug}',
  tableName: '${table}',
  fields: [
    { name: 'title', type: 'string', required: true, searchable: true, sortable: true, validation: { min: 1, max: 200 } },
    { name: 'status', type: 'select', enum: ['draft', 'active', 'archived'], default: 'draft', filterable: true, sortable: true },
    // { name: 'amount', type: 'decimal', precision: 12, scale: 2, validation: { min: 0 }, filterable: true, sortable: true }, // exact: "12.30"
    // { name: 'customer', type: 'relation', to: 'customers', filterable: true }, // customerId; expand=customer
    // { name: 'attachment', type: 'media' }, // attachmentId: a media of the team; expand=attachment (url, renditions)
    // { name: 'itemCount', type: 'integer', virtual: true },                     // computed by hooks.afterRead
  ],
  // Scopes an API key needs per operation (a session of a team member has them by role); none listed: nobody.
  permissions: { list: ['${slug}:read'], read: ['${slug}:read'], create: ['${slug}:write'], update: ['${slug}:write'], delete: ['${slug}:delete'] },
  // shared: every member of the team sees every record (false: only its creator); public: anonymous reads.
  access: { public: false, shared: true },
  // hooks: {
  //   beforeChange({ operation, data, previous, context }) {
  //     if (previous?.status === 'archived') throw context.invalid({ status: 'an archived record cannot change' });
  //     return data;
  //   },
  // },
});
`;
}

/** `entity new <slug>`: writes the definition; refuses a bad slug or an existing file. */
export async function entityNew(args: string[], cli: Cli): Promise<number> {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  const [slug, ...extra] = positionals;
  if (!slug || extra.length) throw new Refusal('entity new takes one slug: npm run -s cli -- entity new invoices');
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(slug)) throw new Refusal(`"${slug}" is not a slug: lowercase letters, digits and hyphens, starting with a letter (invoices, sales-orders)`);
  const naming = entityNaming(slug);
  if (!existsSync(folder())) throw new Refusal('src/config/entities/ is not here: run it from the project\'s root (npm run -s cli -- entity new …)');
  const file = path.join(folder(), `${slug}.ts`);
  if (existsSync(file)) throw new Refusal(`src/config/entities/${slug}.ts exists already`);
  writeFileSync(file, template(slug, naming));
  const next = `npm run db:entities -- add_${naming.table}`;
  if (values.json) cli.out(JSON.stringify({ file: `src/config/entities/${slug}.ts`, name: naming.name, table: naming.table, next }));
  else cli.out(`Wrote src/config/entities/${slug}.ts (type ${naming.name}, table ${naming.table}).\nEdit its fields, then run: ${next}`);
  return 0;
}
