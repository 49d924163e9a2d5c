// Issue 16's relations: three projects for each of the bench user's customers (customers.ts), seeded
// straight in SQL like them. A page of projects with their customer (REST `expand=customer`, GraphQL
// `customer { … }`) and a page of customers with their projects (GraphQL's reverse side) must cost
// the same number of SQL statements at limit 20 as at limit 100 (related records read per page, not
// per record). Here are those requests and the answers they must give, read in SQL without RLS.
import { withClient } from './database.js';
import { customerColumns, instants, type Json } from './customers.js';
import type { RecordOwner } from './tasks.js';

export const projectsPerCustomer = 3;
/** The page sizes compared. */
export const relationPageSizes = [20, 100] as const;
export type RelationPageSize = (typeof relationPageSizes)[number];
/** Projects per customer GraphQL's reverse side asks for (all of them: 3). */
const projectsPerRecord = 5;

export const projectsExpandPath = (limit: number) => `/api/v1/projects?limit=${limit}&expand=customer`;
export const projectsWithCustomerQuery = (limit: number) => `query ProjectsWithCustomer { projects(limit: ${limit}) { items { id name customer { id name office } } } }`;
export const customersWithProjectsQuery = (limit: number) => `query CustomersWithProjects { customers(limit: ${limit}) { items { id name projects(limit: ${projectsPerRecord}) { id name } } } }`;

/**
 * Every customer of the team gets projects 1 to 3, a minute apart after it (so every project has its
 * own instant): statuses in turn, a budget but on the third; no parent, no milestone, no tasks.
 */
const seedSql = `
INSERT INTO projects (id, team_id, user_id, name, status, budget, customer_id, created_at, updated_at)
SELECT md5(c.id::text || '-project-' || k)::uuid, c.team_id, $2::uuid, c.name || ' project ' || k,
       (ARRAY['planned', 'active', 'done'])[1 + (c.account + k) % 3],
       CASE WHEN k = 3 THEN NULL ELSE (c.account % 50) * 1000 + k * 250 END,
       c.id, c.created_at + k * interval '1 minute', c.created_at + k * interval '1 minute'
  FROM customers c, generate_series(1, $3::int) AS k
 WHERE c.team_id = $1::uuid`;

/** Inserts the projects of the customers of `owner`'s team (seedCustomers first). */
export function seedProjects(url: string, owner: RecordOwner): Promise<void> {
  return withClient(url, async (c) => {
    await c.query(seedSql, [owner.teamId, owner.userId, projectsPerCustomer]);
  });
}

/** The answers of one page size. */
export interface RelationAnswers {
  /** projectsExpandPath(limit), as answeringList expects it. */
  rest: { success: true; data: Json[]; pagination: { page: number; limit: number; total: number; totalPages: number } };
  /** projectsWithCustomerQuery(limit). */
  projects: unknown;
  /** customersWithProjectsQuery(limit). */
  customers: unknown;
}

/** The customer's fields projectsWithCustomerQuery selects. */
const brief = (customer: Json) => ({ id: customer.id, name: customer.name, office: customer.office });

/** The answers of each page size, read as the database owner: newest first, projects and their customers. */
export function expectedRelationAnswers(url: string, owner: RecordOwner): Promise<Record<RelationPageSize, RelationAnswers>> {
  return withClient(url, async (c) => {
    const answersAt = async (limit: number): Promise<RelationAnswers> => {
      const projects = await c.query<Json>(
        `SELECT id::text AS id, name, status, budget, customer_id::text AS "customerId", parent_project_id::text AS "parentProjectId",
                milestone_id::text AS "milestoneId", file_ids::text[] AS "fileIds", created_at AS "createdAt", updated_at AS "updatedAt", user_id::text AS "userId", team_id::text AS "teamId"
           FROM projects WHERE team_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
        [owner.teamId, limit],
      );
      if (projects.rows.length !== limit) throw new Error('projects: the seeded rows are missing');
      const related = await c.query<Json>(`SELECT ${customerColumns} FROM customers c WHERE c.id = ANY($1::uuid[])`, [projects.rows.map((p) => p.customerId)]);
      const customerOf = (project: Json) => {
        const customer = related.rows.find((r) => r.id === project.customerId);
        if (!customer) throw new Error(`projects: customer ${String(project.customerId)} is missing`);
        return instants(customer);
      };
      const total = (await c.query<{ total: number }>('SELECT count(*)::int AS total FROM projects WHERE team_id = $1', [owner.teamId])).rows[0]?.total ?? 0;
      // A build whose projects link tasks (many to many, table projects_tasks) answers their ids: none were seeded.
      const linked = (await c.query<{ linked: boolean }>(`SELECT to_regclass('projects_tasks') IS NOT NULL AS linked`)).rows[0]?.linked === true;
      const restProject = (p: Json) => ({ ...instants(p), ...(linked ? { taskIds: [] } : {}), customer: customerOf(p) });
      const customers = await c.query<{ id: string; name: string; projects: { id: string; name: string }[] }>(
        `SELECT c.id::text AS id, c.name,
                coalesce((SELECT json_agg(json_build_object('id', p.id::text, 'name', p.name) ORDER BY p.created_at DESC, p.id DESC)
                            FROM (SELECT * FROM projects p WHERE p.customer_id = c.id ORDER BY p.created_at DESC, p.id DESC LIMIT ${projectsPerRecord}) p), '[]') AS projects
           FROM customers c WHERE c.team_id = $1 ORDER BY c.created_at DESC, c.id DESC LIMIT $2`,
        [owner.teamId, limit],
      );
      return {
        rest: { success: true, data: projects.rows.map(restProject), pagination: { page: 1, limit, total, totalPages: Math.ceil(total / limit) } },
        projects: { data: { projects: { items: projects.rows.map((p) => ({ id: p.id, name: p.name, customer: brief(customerOf(p)) })) } } },
        customers: { data: { customers: { items: customers.rows } } },
      };
    };
    return { 20: await answersAt(20), 100: await answersAt(100) };
  });
}
