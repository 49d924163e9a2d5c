// The generated parts of the docs: docs/configuration.md whole (from the configuration's schemas and
// src/config/reference.ts), and in the API pages each block between `<!-- generated:rest <tag> -->`
// (the REST operations of that OpenAPI tag, as the app serves its document) or
// `<!-- generated:graphql -->` (the schema's root fields) and `<!-- /generated -->`. `npm run generate`
// writes them (scripts/generate-docs.ts); src/docs/docs.test.ts fails when a page is not what they make.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GraphQLField, type GraphQLObjectType } from 'graphql';
import { configurationPage } from '../src/config/reference.js';
import { composition } from '../src/module-list.js';
import { servedOpenApi } from './served-openapi.js';

const { schema } = composition;

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const docsDir = path.join(repositoryRoot, 'docs');

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, unknown>>;
  'x-required-scopes'?: string[];
}

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Who may call an operation, from its security requirements and scopes. */
function access(op: Operation): string {
  const schemes = (op.security ?? []).map((s) => Object.keys(s)[0] ?? 'anonymous');
  const who = !schemes.length ? 'anyone' : schemes.includes('anonymous') ? 'anyone (public entities)' : schemes.includes('apiKey') ? 'session or key' : 'session';
  const scopes = op['x-required-scopes'] ?? [];
  return scopes.length ? `${who}; ${scopes.map((s) => `\`${s}\``).join(', ')}` : who;
}

/** One line of a table cell: pipes escaped, line breaks folded. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function restBlock(openapi: Record<string, unknown>, tags: string[]): string {
  const rows: string[] = [];
  for (const [route, item] of Object.entries(openapi.paths as Record<string, Record<string, Operation>>)) {
    for (const method of methods) {
      const op = item[method];
      if (!op || !op.tags?.some((tag) => tags.includes(tag))) continue;
      rows.push(`| \`${method.toUpperCase()} ${route}\` | ${access(op)} | ${cell(op.summary ?? '')} |`);
    }
  }
  if (!rows.length) throw new Error(`no REST operation is tagged ${tags.join(', ')}`);
  return ['| Operation | Who | What it does |', '|---|---|---|', ...rows].join('\n');
}

function fieldLine(field: GraphQLField<unknown, unknown>): string {
  const args = field.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ');
  return `| \`${field.name}${args ? `(${args})` : ''}\` | \`${String(field.type)}\` | ${cell(field.description ?? '')} |`;
}

function graphqlBlock(): string {
  const roots: Array<[string, GraphQLObjectType | null | undefined]> = [['Query', schema.getQueryType()], ['Mutation', schema.getMutationType()], ['Subscription', schema.getSubscriptionType()]];
  return roots
    .filter((root): root is [string, GraphQLObjectType] => Boolean(root[1]))
    .map(([name, type]) => {
      const fields = Object.values(type.getFields()).sort((a, b) => a.name.localeCompare(b.name));
      return [`**${name}** (${fields.length} fields)`, '', '| Field | Type | Description |', '|---|---|---|', ...fields.map(fieldLine)].join('\n');
    })
    .join('\n\n');
}

const blockPattern = /(<!-- generated:(rest|graphql)([^>]*?) -->\n)[\s\S]*?(\n<!-- \/generated -->)/g;

/** Every generated page: its path in the repository and the content it should have. */
export async function generatedDocs(openapi?: Record<string, unknown>): Promise<Map<string, string>> {
  openapi ??= await servedOpenApi();
  const pages = new Map<string, string>([[path.join(docsDir, 'configuration.md'), configurationPage()]]);
  const markdown = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdown(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
  for (const file of markdown(docsDir)) {
    const text = readFileSync(file, 'utf8');
    const filled = text.replace(blockPattern, (_all, open: string, kind: string, args: string, close: string) => {
      const body = kind === 'rest' ? restBlock(openapi, args.split(',').map((t) => t.trim()).filter(Boolean)) : graphqlBlock();
      return `${open}${body}${close}`;
    });
    if (text.includes('<!-- generated:')) pages.set(file, filled);
  }
  return pages;
}
