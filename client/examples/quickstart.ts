// The README's example, run by client/client.test.ts against a real server: a task created over REST,
// read back from a page, and the open ones listed with a typed GraphQL query.
import { graphql } from '../src/generated/graphql/index.js';
import { createPlatformClient } from '../src/index.js';

// Typed by the schema: `data.tasks.items[0].title` is a string, `$limit` an Int.
const openTasks = graphql(`
  query OpenTasks($limit: Int) {
    tasks(limit: $limit, where: { status: { eq: TODO } }) {
      total
      items {
        id
        title
        priority
      }
    }
  }
`);

export async function quickstart(baseUrl: string, apiKey: string) {
  const client = createPlatformClient({ baseUrl, apiKey });

  // REST: path, method, body and answer typed from the OpenAPI document.
  const created = await client.rest.POST('/api/v1/tasks', { body: { title: 'Write the report', priority: 'high' } });
  if (!created.data) throw new Error(`could not create the task: ${JSON.stringify(created.error)}`);
  // A page of records: items typed as Task, filters and sort as the LIST route takes them.
  const page = await client.list('/api/v1/tasks', { limit: 10, sortBy: 'createdAt', sortOrder: 'desc' });

  // GraphQL: the result typed by the document.
  const open = await client.graphql(openTasks, { limit: 10 });
  if (open.errors) throw new Error(open.errors.map((e) => e.message).join('; '));

  return { task: created.data.data, listed: page.data?.items ?? [], open: open.data?.tasks.items ?? [] };
}
