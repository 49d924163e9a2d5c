// What is measured: each scenario is one HTTP request (or one per API key, rotated), sent to each
// target that answers it. Every response is checked: a cheap prefix (or length) test on every response
// under load, a full check once before each warm-up (equal to the reference answer; for the teams
// scenarios, exactly the seeded teams and members; for tasks, customers, projects and the media search,
// the answer read in SQL; for uploads, one record of the file sent; for the rendition, see media.ts).
// Issue 16's scenarios (operators, aggregate, cursors, relations) are this build's only: a previous
// build (--against) may not answer them. The raw baseline answers some (issue 40).
import { isDeepStrictEqual } from 'node:util';
import { enumValueName } from '../src/modules/entities/graphql-names.js';
import { bearer, unknownKeys, type BenchKeys } from './api-keys.js';
import { mapLimited } from './concurrency.js';
import { childPageSizes, customersWithChildrenPath, type ChildPageSize } from './customers.js';
import { takeFresh } from './load.js';
import { checkRendition, isWebp, mediaSearchPath, uploadProblem, uploadRequest, uploadVerifier, type UploadFiles, type UploadSize } from './media.js';
import type { SessionData } from './session.js';
import { teamMembersPath, teamMembersProblem, teamsListPath, teamsListProblem, type BenchTeams } from './teams.js';
import { customersWithProjectsQuery, projectsExpandPath, projectsWithCustomerQuery, relationPageSizes, type RelationAnswers, type RelationPageSize } from './projects.js';
import {
  cursorPage,
  graphqlTask,
  taskPath,
  taskQuery,
  tasksAggregatePath,
  tasksAggregateQuery,
  tasksCursorPath,
  tasksCursorQuery,
  tasksListGraphqlRequest,
  tasksListPath,
  tasksOrFilterGraphql,
  tasksOrFilterPath,
  tasksOrFilterUncountedPath,
  uncountedListPath,
  type GraphqlTasks,
  type TaskDataset,
  type TaskPage,
  type TaskSize,
} from './tasks.js';

export type ScenarioId =
  | 'healthz'
  | 'session-rest'
  | 'session-graphql'
  | 'session-key'
  | 'session-key-rotating'
  | 'invalid-key-flood'
  | 'teams-list'
  | 'team-members'
  | `tasks-list-${TaskSize}`
  | `tasks-list-uncounted-${TaskSize}`
  | 'tasks-list-br-1k'
  | `task-read-${TaskSize}`
  | `customers-child-${ChildPageSize}`
  | `tasks-or-filter-${TaskSize}`
  | 'tasks-or-filter-uncounted-100k'
  | 'tasks-aggregate-100k'
  | 'tasks-cursor-page-1'
  | `tasks-cursor-page-${typeof cursorPage}`
  | `projects-expand-${RelationPageSize}`
  | `customers-projects-${RelationPageSize}`
  | 'media-search'
  | 'media-render-cached'
  | UploadScenarioId;
/** The product's faces; with `--against`, a previous build's the same with `-prev`. */
type ProductTarget = 'rest' | 'graphql' | 'rest-pglite';
export type TargetId = 'raw' | ProductTarget | `${ProductTarget}-prev`;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  /** A Buffer for uploads (multipart bodies). */
  body?: string | Buffer;
}

/** Load sent at the same time by a second autocannon instance, through the warm-up and the measurement. */
export interface BackgroundLoad {
  description: string;
  /** Sent in turn, like Measurement.requests. */
  requests: readonly HttpRequest[];
  connections: number;
  /** The status every answer must have. */
  status: number;
  verify: (body: string) => boolean;
}

export interface Measurement {
  scenario: ScenarioId;
  target: TargetId;
  /** Sent in turn, each connection cycling through them: one request, or one per key when keys rotate. */
  requests: readonly HttpRequest[];
  /** Also measured with one connection, for latency without queueing. */
  latencyRun: boolean;
  /** Cheap enough for every response under load (autocannon buffers bodies anyway). */
  verify: (body: string) => boolean;
  /** The full check of the parsed answer to every one of `requests`: what is wrong with it, or undefined. */
  check: (answer: unknown) => string | undefined;
  background?: BackgroundLoad;
  /** Under load, paths never sent before instead of `requests` (whose paths the full check uses once). */
  fresh?: (n: number) => string;
  /** Bodies never sent before, under load and in the full check (uploads: no file repeats another's content). */
  freshBody?: (n: number) => Buffer;
  /** Connections of the warm-up and throughput runs, when not the bench's (uploads 4 in flight). */
  connections?: number;
  /**
   * Run on each server before the full check, for what a JSON check cannot see (a binary answer).
   * A `skip` reason leaves the measurement out on that server (reported as not measured); a `note` is logged.
   */
  prepare?: (baseUrl: string) => Promise<{ skip?: string; note?: string }>;
  /** Run on each server once the measurement's load has stopped (uploads: removing what they stored). */
  after?: () => Promise<void>;
  /**
   * Slow paths: after each run, wait until the database has no active statement, so that requests the
   * server still finishes for disconnected clients do not weigh on the next run.
   */
  settle?: boolean;
  /** Measured on this build only, never on a previous one (--against), which may not answer it (issue 16's scenarios). */
  productOnly?: boolean;
}

export const currentSessionQuery = 'query CurrentSession { me { user { id email role firstName lastName image } activeTeamId } }';

/** Connections of the invalid-key flood: each waits out the product's ≥ 100 ms failure delay. */
export const floodConnections = 50;
/** Distinct unknown keys in the flood, so that no single key's answer can be cached. */
const floodKeyCount = 1000;

/** The check of an answer that must equal the reference `expected`. */
function equalTo(expected: unknown): Measurement['check'] {
  return (answer) => (isDeepStrictEqual(answer, expected) ? undefined : `expected ${JSON.stringify(expected)}`);
}

/**
 * Both checks of an answer that must equal `expected`: under load, its start and its length (the
 * length of a JSON text does not depend on the order of its keys).
 */
function answering(expected: unknown, prefix: string): Pick<Measurement, 'verify' | 'check'> {
  const length = JSON.stringify(expected).length;
  return { verify: (body) => body.length === length && body.startsWith(prefix), check: equalTo(expected) };
}

/**
 * The checks of a REST LIST answer that must equal `expected` but for `pagination.nextCursor`, which
 * builds with keyset cursors add (opaque: a next page must have one, the last none; earlier builds
 * answer none): the full check compares the rest, and under load the answer's length must be that of
 * the answer the full check passed. `more`: whether a next page exists (in cursor mode, page null,
 * the caller says).
 */
type ListExpected = { success: true; pagination: { page: number | null; totalPages: number } };

function answeringList(expected: ListExpected, prefix: string, more = expected.pagination.page !== null && expected.pagination.page < expected.pagination.totalPages): Pick<Measurement, 'verify' | 'check'> {
  let length = JSON.stringify(expected).length;
  const same = equalTo(expected);
  return {
    verify: (body) => body.length === length && body.startsWith(prefix),
    check: (answer) => {
      const { nextCursor, ...pagination } = ((answer as { pagination?: Record<string, unknown> } | null)?.pagination ?? {}) as Record<string, unknown>;
      if (nextCursor !== undefined && !(more ? typeof nextCursor === 'string' && nextCursor.length > 0 : nextCursor === null)) return `nextCursor ${JSON.stringify(nextCursor)} for a page ${more ? 'with' : 'without'} a next one`;
      const problem = same({ ...(answer as object), pagination });
      if (!problem) length = JSON.stringify(answer).length;
      return problem;
    },
  };
}

function graphqlRequest(cookie: string, query: string, variables?: Record<string, unknown>): HttpRequest {
  // No Origin header: a cookie-carrying POST from a foreign origin is refused as CSRF.
  return { method: 'POST', path: '/graphql', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) };
}

function healthz(target: TargetId): Measurement {
  return {
    scenario: 'healthz',
    target,
    requests: [{ method: 'GET', path: '/healthz', headers: {} }],
    latencyRun: false,
    verify: (body) => body === '{"status":"ok"}',
    check: equalTo({ status: 'ok' }),
  };
}

function sessionRequest(headers: Record<string, string>): HttpRequest {
  return { method: 'GET', path: '/api/auth/session', headers };
}

/** GET /api/auth/session with a cookie or a key: the same answer either way. */
function session(scenario: ScenarioId, target: TargetId, credentials: readonly Record<string, string>[], data: SessionData): Measurement {
  return {
    scenario,
    target,
    requests: credentials.map(sessionRequest),
    latencyRun: true,
    verify: (body) => body.startsWith('{"success":true,"data":{"user":{'),
    check: equalTo({ success: true, data }),
  };
}

function sessionGraphql(cookie: string, data: SessionData): Measurement {
  return {
    scenario: 'session-graphql',
    target: 'graphql',
    requests: [graphqlRequest(cookie, currentSessionQuery)],
    latencyRun: true,
    // A GraphQL error still answers 200, so the body must start with a non-null `me`.
    verify: (body) => body.startsWith('{"data":{"me":{"user":{'),
    check: equalTo({ data: { me: data } }),
  };
}

/** The warm key's session while a flood of well-formed unknown keys waits out its 401s. */
function invalidKeyFlood(key: string, data: SessionData): Measurement {
  return {
    ...session('invalid-key-flood', 'rest', [bearer(key)], data),
    latencyRun: false,
    background: {
      description: `${floodConnections} connections sending unknown keys`,
      requests: unknownKeys(key, floodKeyCount).map((unknown) => sessionRequest(bearer(unknown))),
      connections: floodConnections,
      status: 401,
      verify: (body) => body.startsWith('{"success":false,'),
    },
  };
}

/** The bench user's 20 teams, each with 50 members and the bench user as owner. */
function teamsList(cookie: string, teams: BenchTeams): Measurement {
  return {
    scenario: 'teams-list',
    target: 'rest',
    requests: [{ method: 'GET', path: teamsListPath, headers: { cookie } }],
    latencyRun: true,
    // Teams may come in any order, but every answer has the length of the one checked at seeding.
    verify: (body) => body.length === teams.answerLengths.list && body.startsWith('{"success":true,"data":[{'),
    check: (answer) => teamsListProblem(answer, teams),
  };
}

/** The 50 members of one of those teams, with their users. */
function teamMembers(cookie: string, teams: BenchTeams): Measurement {
  return {
    scenario: 'team-members',
    target: 'rest',
    requests: [{ method: 'GET', path: teamMembersPath(teams.listedTeamId), headers: { cookie } }],
    latencyRun: true,
    verify: (body) => body.length === teams.answerLengths.members && body.startsWith('{"success":true,"data":[{'),
    check: (answer) => teamMembersProblem(answer, teams),
  };
}

/** LIST: the dataset's first page of todo tasks, soonest due first, with the total. */
function tasksList(target: 'raw' | 'rest', tasks: TaskDataset): Measurement {
  return {
    scenario: `tasks-list-${tasks.size}`,
    target,
    requests: [{ method: 'GET', path: tasksListPath, headers: { cookie: tasks.cookie } }],
    latencyRun: true,
    ...answeringList({ success: true, ...tasks.expected.list }, '{"success":true,"data":[{'),
  };
}

/** S5: the LIST whose total the product has never counted (each request a new query): what a total costs. */
function tasksListUncounted(tasks: TaskDataset): Measurement {
  return {
    scenario: `tasks-list-uncounted-${tasks.size}`,
    target: 'rest',
    // The full check's path lies far beyond those sent under load.
    requests: [{ method: 'GET', path: uncountedListPath(1_000_000_000), headers: { cookie: tasks.cookie } }],
    fresh: uncountedListPath,
    latencyRun: true,
    ...answeringList({ success: true, ...tasks.expected.uncounted }, '{"success":true,"data":[{'),
  };
}

/**
 * The same LIST asked compressed (`Accept-Encoding: br`, as browsers ask): what compression costs the
 * server (issue 40). Under load autocannon does not decode, so an answer passes when it is not the
 * plain JSON; prepare checks once on each server that it is brotli and decodes to the expected answer.
 */
function tasksListCompressed(tasks: TaskDataset): Measurement {
  const plain = tasksList('rest', tasks);
  const request = { ...plain.requests[0]!, headers: { ...plain.requests[0]!.headers, 'accept-encoding': 'br' } };
  return {
    ...plain,
    scenario: 'tasks-list-br-1k',
    requests: [request],
    latencyRun: false,
    // Fetch (the full check) decodes: the plain answer's check; autocannon does not: brotli bytes.
    verify: (body) => (body.startsWith('{') ? plain.verify(body) : body.length > 0),
    prepare: async (baseUrl) => {
      const response = await fetch(`${baseUrl}${request.path}`, { headers: request.headers });
      const encoding = response.headers.get('content-encoding');
      const problem = encoding === 'br' ? plain.check(await response.json()) : `content-encoding ${encoding}, expected br`;
      if (problem) throw new Error(`tasks-list-br-1k: ${problem}`);
      return {};
    },
  };
}

/** The same LIST as a GraphQL query selecting every field REST answers. */
function tasksListGraphql(tasks: TaskDataset, dialect: GraphqlTasks): Measurement {
  const { data, pagination } = tasks.expected.list;
  const { query, variables } = tasksListGraphqlRequest(dialect);
  return {
    scenario: `tasks-list-${tasks.size}`,
    target: 'graphql',
    requests: [graphqlRequest(tasks.cookie, query, variables)],
    latencyRun: false,
    ...answering({ data: { tasks: { items: data.map((r) => graphqlTask(r, dialect)), ...pagination } } }, '{"data":{"tasks":{"items":[{'),
  };
}

/** READ: one task of the dataset by id. */
function taskRead(target: 'raw' | 'rest', tasks: TaskDataset): Measurement {
  const { record } = tasks.expected;
  return {
    scenario: `task-read-${tasks.size}`,
    target,
    requests: [{ method: 'GET', path: taskPath(record.id), headers: { cookie: tasks.cookie } }],
    latencyRun: true,
    ...answering({ success: true, data: record }, '{"success":true,"data":{'),
  };
}

function taskReadGraphql(tasks: TaskDataset, dialect: GraphqlTasks): Measurement {
  const { record } = tasks.expected;
  return {
    scenario: `task-read-${tasks.size}`,
    target: 'graphql',
    requests: [graphqlRequest(tasks.cookie, taskQuery, { id: record.id })],
    latencyRun: false,
    ...answering({ data: { task: graphqlTask(record, dialect) } }, '{"data":{"task":{'),
  };
}

/** S8: a page of customers with their metas and notes. */
function customersWithChildren(cookie: string, limit: ChildPageSize, expected: ListExpected): Measurement {
  return {
    scenario: `customers-child-${limit}`,
    target: 'rest',
    requests: [{ method: 'GET', path: customersWithChildrenPath(limit), headers: { cookie } }],
    latencyRun: true,
    ...answeringList(expected, '{"success":true,"data":[{'),
  };
}

/** A GET of this build only (issue 16; the raw baseline answers some), with a 1-connection latency run. */
function productGet(scenario: ScenarioId, cookie: string, path: string, target: 'rest' | 'raw' = 'rest'): Pick<Measurement, 'scenario' | 'target' | 'productOnly' | 'latencyRun' | 'requests'> {
  return { scenario, target, productOnly: true, latencyRun: true, requests: [{ method: 'GET', path, headers: { cookie } }] };
}

/** A GraphQL operation of this build only (issue 16); a latency run only when asked (REST has them). */
function productGraphql(scenario: ScenarioId, cookie: string, query: string, variables?: Record<string, unknown>, latencyRun = false): Pick<Measurement, 'scenario' | 'target' | 'productOnly' | 'latencyRun' | 'requests'> {
  return { scenario, target: 'graphql', productOnly: true, latencyRun, requests: [graphqlRequest(cookie, query, variables)] };
}

const restListPrefix = '{"success":true,"data":[{';
const graphqlTasksPrefix = '{"data":{"tasks":{"items":[{';

/**
 * Issue 16: LIST with an OR of operators (REST `filter` JSON, GraphQL `where`), newest first, with the
 * total. The product remembers the total (the same filter every time); the raw baseline counts it on
 * every request.
 */
function tasksOrFilter(target: 'raw' | 'rest' | 'graphql', tasks: TaskDataset): Measurement {
  const scenario = `tasks-or-filter-${tasks.size}` as const;
  const { data, pagination } = tasks.expected.orFilter;
  // Settles: the raw baseline's counts, still queued when a run ends, would weigh on the next.
  if (target !== 'graphql') return { ...productGet(scenario, tasks.cookie, tasksOrFilterPath, target), settle: true, ...answeringList({ success: true, ...tasks.expected.orFilter }, restListPrefix) };
  const answer = { data: { tasks: { items: data.map((r) => graphqlTask(r, 'typed')), ...pagination } } };
  return { ...productGraphql(scenario, tasks.cookie, tasksOrFilterGraphql.query, tasksOrFilterGraphql.variables), ...answering(answer, graphqlTasksPrefix) };
}

/** A path whose every request reads every matching row: 8 connections, and the database settles between runs. */
const heavy = { connections: 8, settle: true };

/**
 * Issue 40: the first request of a filter whose total is not remembered yet. Each request's OR has a
 * bound never sent before (tasksOrFilterUncountedPath): the same rows, a total counted every time on
 * both targets.
 */
function tasksOrFilterUncounted(target: 'raw' | 'rest', tasks: TaskDataset): Measurement {
  return {
    ...productGet('tasks-or-filter-uncounted-100k', tasks.cookie, tasksOrFilterUncountedPath(1_000_000_000), target),
    // The full check's path lies far beyond those sent under load.
    fresh: tasksOrFilterUncountedPath,
    ...heavy,
    ...answeringList({ success: true, ...tasks.expected.orFilter }, restListPrefix),
  };
}

/**
 * Issue 16: count and sum of the estimates per status over the 100k tasks. The product remembers the
 * answer per record version of the team's tasks (totals.ts): the first after a write reads every task
 * (about 80 ms alone), the others one version row; the raw baseline groups every time.
 */
function tasksAggregate(target: 'raw' | 'rest' | 'graphql', tasks: TaskDataset): Measurement {
  const scenario = 'tasks-aggregate-100k';
  const groups = tasks.expected.byStatus;
  if (target !== 'graphql') return { ...productGet(scenario, tasks.cookie, tasksAggregatePath, target), ...heavy, ...answering({ success: true, data: groups }, restListPrefix) };
  const answer = { data: { tasksAggregate: { groups: groups.map((g) => ({ ...g, key: { status: g.key.status && enumValueName(g.key.status) } })) } } };
  return { ...productGraphql(scenario, tasks.cookie, tasksAggregateQuery), ...heavy, ...answering(answer, '{"data":{"tasksAggregate":{"groups":[{') };
}

/**
 * Issue 16: 10 tasks newest first, page 1 (REST `?limit=10`, GraphQL `first: 10`) or page 1,000 by
 * cursor (page 999's nextCursor; GraphQL `after:` the same cursor). Neither is the last page.
 */
function tasksCursor(target: 'rest' | 'graphql', tasks: TaskDataset, page: TaskPage, cursor: string | null): Measurement {
  const scenario = cursor === null ? 'tasks-cursor-page-1' : (`tasks-cursor-page-${cursorPage}` as const);
  if (target === 'rest') return { ...productGet(scenario, tasks.cookie, tasksCursorPath(cursor)), ...answeringList({ success: true, ...page }, restListPrefix, true) };
  // GraphQL's first page is in cursor mode too: page null.
  const answer = { data: { tasks: { items: page.data.map((r) => graphqlTask(r, 'typed')), ...page.pagination, page: null } } };
  return { ...productGraphql(scenario, tasks.cookie, tasksCursorQuery, { after: cursor }), ...answering(answer, graphqlTasksPrefix) };
}

/** Issue 16: a page of projects with their customer: REST `expand=customer`, GraphQL `customer { id name office }`. */
function projectsExpand(target: 'raw' | 'rest' | 'graphql', cookie: string, limit: RelationPageSize, answers: RelationAnswers): Measurement {
  const scenario = `projects-expand-${limit}` as const;
  if (target !== 'graphql') return { ...productGet(scenario, cookie, projectsExpandPath(limit), target), ...answeringList(answers.rest, restListPrefix) };
  return { ...productGraphql(scenario, cookie, projectsWithCustomerQuery(limit), undefined, true), ...answering(answers.projects, '{"data":{"projects":{"items":[{') };
}

/** Issue 16: the reverse side, GraphQL only: a page of customers, each with its projects. */
function customersProjects(cookie: string, limit: RelationPageSize, answers: RelationAnswers): Measurement {
  return { ...productGraphql(`customers-projects-${limit}`, cookie, customersWithProjectsQuery(limit), undefined, true), ...answering(answers.customers, '{"data":{"customers":{"items":[{') };
}

/** S10's uploads: one JPEG per request; the 2 MB one like every scenario, the BENCHMARKS variants with 4 uploads in flight. */
export const uploadScenarios = [
  { id: 'upload-2mb', size: '2mb', connections: undefined, latencyRun: true },
  { id: 'upload-200kb', size: '200kb', connections: 4, latencyRun: false },
  { id: 'upload-5mb', size: '5mb', connections: 4, latencyRun: false },
] as const satisfies readonly { id: string; size: UploadSize; connections: number | undefined; latencyRun: boolean }[];
export type UploadScenarioId = (typeof uploadScenarios)[number]['id'];

/** What S10 needs: the bench user's cookie, its teams for uploads, the files, and the answers read in SQL. */
export interface MediaSeed {
  cookie: string;
  uploadTeamId: string;
  files: UploadFiles;
  /** The answer to mediaSearchPath. */
  search: unknown;
  renditionPath: string;
  /** Removes what the upload scenarios stored (records and files). */
  removeUploads: () => Promise<void>;
}

/** S10: one file per request (req/s = files/s), every file's content new; what they stored is removed afterwards. */
function upload(target: 'raw' | 'rest', media: MediaSeed, spec: (typeof uploadScenarios)[number]): Measurement {
  const file = media.files[spec.size];
  return {
    scenario: spec.id,
    target,
    requests: [uploadRequest(target, media.cookie, media.uploadTeamId, file)],
    freshBody: (n) => file.fresh(n),
    connections: spec.connections,
    latencyRun: spec.latencyRun,
    settle: true,
    verify: uploadVerifier(target),
    check: (answer) => uploadProblem(answer, file, media.uploadTeamId, target === 'rest'),
    after: media.removeUploads,
  };
}

/**
 * S10: full-text search over the 50k records, one page of 20 with the total. At 4 connections: a
 * search that misses its index (a second each) queued 50 deep would outlast autocannon's 10 s timeout
 * and end the whole bench instead of showing up in its table.
 */
function mediaSearch(media: MediaSeed): Measurement {
  return {
    scenario: 'media-search',
    target: 'rest',
    requests: [{ method: 'GET', path: mediaSearchPath, headers: { cookie: media.cookie } }],
    connections: 4,
    settle: true,
    latencyRun: true,
    ...answering(media.search, '{"success":true,"data":{"data":[{'),
  };
}

/** S10: a rendition already cached on storage (the check before the warm-up renders it if needed). */
function renditionCached(media: MediaSeed): Measurement {
  return {
    scenario: 'media-render-cached',
    target: 'rest',
    requests: [{ method: 'GET', path: media.renditionPath, headers: { cookie: media.cookie } }],
    latencyRun: true,
    verify: isWebp,
    // Binary: checked in full by prepare.
    check: () => undefined,
    prepare: (baseUrl) => checkRendition(baseUrl, media.renditionPath, media.cookie),
  };
}

/** A server process and what is measured against it; `previous-*`: the build `--against` names, on the same databases. */
export type ServerKind = 'raw' | 'product-pg' | 'product-pglite' | 'previous-pg' | 'previous-pglite';

export interface Credentials {
  cookie: string;
  session: SessionData;
}

export interface KeyedCredentials extends Credentials {
  keys: BenchKeys;
}

/** What is seeded on PostgreSQL: the bench user with its API keys, its teams, its customers and their projects, and both tasks datasets. */
export interface PostgresSeed extends KeyedCredentials {
  teams: BenchTeams;
  tasks: TaskDataset[];
  /** The answer to customersWithChildrenPath(limit), per limit. */
  customerPages: Record<ChildPageSize, ListExpected>;
  /** The answers of the relations scenarios (projects.ts), per limit. */
  relations: Record<RelationPageSize, RelationAnswers>;
  /** Page 1,000's cursor on the 100k tasks (tasks.ts deepCursorOf); null when no scenario selected needs it. */
  tasksDeepCursor: string | null;
  media: MediaSeed;
}

/** `previous`: how the previous build's GraphQL speaks of tasks (only read for the `previous-*` kinds). */
export function measurementsFor(server: ServerKind, pg: PostgresSeed, pglite: Credentials, previous: GraphqlTasks = 'typed'): Measurement[] {
  switch (server) {
    case 'raw':
      return [
        healthz('raw'),
        session('session-rest', 'raw', [{ cookie: pg.cookie }], pg.session),
        ...pg.tasks.flatMap((tasks) => [tasksList('raw', tasks), taskRead('raw', tasks)]),
        ...rawQueryPower(pg),
        ...uploadScenarios.map((spec) => upload('raw', pg.media, spec)),
      ];
    case 'product-pg':
      return productPg(pg, 'typed');
    case 'product-pglite':
      return productPglite(pglite);
    case 'previous-pg':
      return productPg(pg, previous).filter((m) => !m.productOnly).map(asPrevious);
    case 'previous-pglite':
      return productPglite(pglite).map(asPrevious);
  }
}

/** The same measurement, of the previous build. */
function asPrevious(m: Measurement): Measurement {
  return { ...m, target: `${m.target as ProductTarget}-prev` };
}

function productPg(pg: PostgresSeed, dialect: GraphqlTasks): Measurement[] {
  // One process serves both faces and both credentials: all measured against the same server.
  // The flood comes last: nothing measured after it on this server can feel its aftermath.
  return [
    healthz('rest'),
    session('session-rest', 'rest', [{ cookie: pg.cookie }], pg.session),
    sessionGraphql(pg.cookie, pg.session),
    session('session-key', 'rest', [bearer(pg.keys.warm)], pg.session),
    { ...session('session-key-rotating', 'rest', pg.keys.rotating.map(bearer), pg.session), latencyRun: false },
    teamsList(pg.cookie, pg.teams),
    teamMembers(pg.cookie, pg.teams),
    ...pg.tasks.flatMap((tasks) => [tasksList('rest', tasks), tasksListGraphql(tasks, dialect), tasksListUncounted(tasks), ...(tasks.size === '1k' ? [tasksListCompressed(tasks)] : []), taskRead('rest', tasks), taskReadGraphql(tasks, dialect)]),
    ...childPageSizes.map((limit) => customersWithChildren(pg.cookie, limit, pg.customerPages[limit])),
    ...queryPower(pg),
    mediaSearch(pg.media),
    renditionCached(pg.media),
    ...uploadScenarios.map((spec) => upload('rest', pg.media, spec)),
    invalidKeyFlood(pg.keys.warm, pg.session),
  ];
}

/** Issue 16 ("Query power"), this build only: operators at 1k and 100k, aggregate, cursors at page 1 and 1,000, relations at limit 20 and 100. */
function queryPower(pg: PostgresSeed): Measurement[] {
  const large = pg.tasks.find((tasks) => tasks.size === '100k');
  const pages = large?.expected.cursorPages;
  const faces = ['rest', 'graphql'] as const;
  return [
    ...pg.tasks.flatMap((tasks) => faces.map((face) => tasksOrFilter(face, tasks))),
    ...(large ? [tasksOrFilterUncounted('rest', large)] : []),
    ...(large ? faces.map((face) => tasksAggregate(face, large)) : []),
    ...(large && pages ? faces.map((face) => tasksCursor(face, large, pages.first, null)) : []),
    ...(large && pages && pg.tasksDeepCursor !== null ? faces.map((face) => tasksCursor(face, large, pages.deep, pg.tasksDeepCursor)) : []),
    ...relationPageSizes.flatMap((limit) => faces.map((face) => projectsExpand(face, pg.cookie, limit, pg.relations[limit]))),
    ...relationPageSizes.map((limit) => customersProjects(pg.cookie, limit, pg.relations[limit])),
  ];
}

/** Issue 40: the raw baseline of issue 16's queries on 100k tasks (OR filter, its total uncounted, aggregate) and of the relations. */
function rawQueryPower(pg: PostgresSeed): Measurement[] {
  const large = pg.tasks.find((tasks) => tasks.size === '100k');
  return [
    ...(large ? [tasksOrFilter('raw', large), tasksOrFilterUncounted('raw', large), tasksAggregate('raw', large)] : []),
    ...relationPageSizes.map((limit) => projectsExpand('raw', pg.cookie, limit, pg.relations[limit])),
  ];
}

function productPglite(pglite: Credentials): Measurement[] {
  return [healthz('rest-pglite'), session('session-rest', 'rest-pglite', [{ cookie: pglite.cookie }], pglite.session)];
}

/**
 * What S8 and issue 16 count statements of: customers with children, projects with their customer
 * (REST and GraphQL) and customers with their projects (GraphQL), each at both page sizes, and for
 * context the large tasks dataset's LIST and READ.
 */
export function statementCountMeasurements(pg: PostgresSeed): Measurement[] {
  const large = pg.tasks.filter((tasks) => tasks.size === '100k');
  return [
    ...childPageSizes.map((limit) => customersWithChildren(pg.cookie, limit, pg.customerPages[limit])),
    ...relationPageSizes.flatMap((limit) => (['rest', 'graphql'] as const).map((face) => projectsExpand(face, pg.cookie, limit, pg.relations[limit]))),
    ...relationPageSizes.map((limit) => customersProjects(pg.cookie, limit, pg.relations[limit])),
    ...large.flatMap((tasks) => [tasksList('rest', tasks), taskRead('rest', tasks)]),
  ];
}

interface Answer {
  status: number;
  text: string;
  parsed: unknown;
}

/** A request's body as fetch takes it. */
export const fetchBody = (body: HttpRequest['body']) => (typeof body === 'string' || body === undefined ? body : new Uint8Array(body));

async function send(baseUrl: string, { method, path, headers, body }: HttpRequest): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: fetchBody(body) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, text, parsed };
}

/** Requests checked at once: rotating keys are a thousand requests. */
const checksInFlight = 8;

function problemWith(m: Measurement, a: Answer): string | undefined {
  if (a.status < 200 || a.status > 299) return `status ${a.status}`;
  // The full check first: a list's check learns the length the check under load then expects.
  return m.check(a.parsed) ?? (m.verify(a.text) ? undefined : 'fails the check made under load');
}

/**
 * Sends each request once and checks the whole answer, and one request of the background load for
 * its status; throws on any difference.
 */
export async function checkOnce(baseUrl: string, m: Measurement): Promise<void> {
  const label = `${m.scenario} on ${m.target}`;
  await mapLimited(m.requests, checksInFlight, async (request) => {
    // A copy: the fresh body is one buffer, rewritten for every request.
    const a = await send(baseUrl, m.freshBody ? { ...request, body: Buffer.from(m.freshBody(takeFresh())) } : request);
    const problem = problemWith(m, a);
    if (problem) throw new Error(`${label}: unexpected answer ${a.status} ${a.text.slice(0, 500)}\n${problem}`);
  });
  const background = m.background?.requests[0];
  if (m.background && background) {
    const a = await send(baseUrl, background);
    if (a.status !== m.background.status || !m.background.verify(a.text)) {
      throw new Error(`${label} (${m.background.description}): unexpected answer ${a.status} ${a.text.slice(0, 500)}, expected ${m.background.status}`);
    }
  }
}
