// The bench user's teams, built through the product's own API as any client would: 49 more accounts
// sign up, the bench user creates 19 teams beside its personal one and invites every account into
// each, and every invitation is accepted with the invitee's own session. That makes 20 teams of 50
// members, all owned by the bench user. Also here: what the teams scenarios' answers must be.
import { mapLimited } from './concurrency.js';
import { fetchSessionData, obtainSessionCookie, type Account, type SessionData } from './session.js';

export const teamCount = 20;
export const membersPerTeam = 50;
/** Signups at once: argon2 takes ~50–100 ms of the server's CPU per account. */
const signupsInFlight = 4;
/** Team creations at once: overlaps the round trips without swamping the server's pool of 8. */
const creationsInFlight = 8;
/** Invitations (invite, then accept) at once: as many as the server's pool has connections. */
const invitationsInFlight = 8;

export const teamsListPath = `/api/v1/teams?limit=${teamCount}`;
export const teamMembersPath = (teamId: string) => `/api/v1/teams/${encodeURIComponent(teamId)}/members?limit=${membersPerTeam}`;

/** A member's user, as the members list must show it. */
export interface MemberUser {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
}

export interface BenchTeams {
  /** The bench user's teams: its personal team first, then the ones it created. */
  teamIds: string[];
  /** The team whose members are listed: the bench user's personal team. */
  listedTeamId: string;
  /** The members of every team: the bench user (owner) first, then the invited accounts. */
  members: MemberUser[];
  /** Lengths of the answers the seeding server gave (checked in full), for the cheap check under load. */
  answerLengths: { list: number; members: number };
}

interface Session {
  cookie: string;
  session: SessionData;
}

interface Member extends Session {
  account: Account;
}

async function call(baseUrl: string, method: 'GET' | 'POST', path: string, cookie: string, status: number, body?: unknown): Promise<{ text: string; parsed: unknown }> {
  // No Origin header: the product's CSRF check refuses only foreign origins and cross-site fetches.
  const headers: Record<string, string> = body === undefined ? { cookie } : { cookie, 'content-type': 'application/json' };
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)} (expected ${status})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path}: not JSON: ${text.slice(0, 500)}`);
  }
  return { text, parsed };
}

/** `data[field]` of a success envelope, which must be a string. */
function dataString(parsed: unknown, field: string, what: string): string {
  const value = isRecord(parsed) && parsed.success === true && isRecord(parsed.data) ? parsed.data[field] : undefined;
  if (typeof value !== 'string') throw new Error(`${what}: no data.${field} in ${JSON.stringify(parsed).slice(0, 500)}`);
  return value;
}

/** The n-th member account (1-based) seedTeams signs up. */
export function memberAccount(n: number): Account {
  const number = String(n).padStart(2, '0');
  return { email: `bench-member-${number}@example.com`, password: 'benchpassword', firstName: 'Member', lastName: `Number ${number}` };
}

async function signUp(baseUrl: string, account: Account): Promise<Member> {
  const cookie = await obtainSessionCookie(baseUrl, account);
  return { account, cookie, session: await fetchSessionData(baseUrl, cookie, account.email) };
}

async function createTeam(baseUrl: string, cookie: string, n: number): Promise<string> {
  const { parsed } = await call(baseUrl, 'POST', '/api/v1/teams', cookie, 201, { name: `Bench team ${n}`, slug: `bench-team-${n}` });
  return dataString(parsed, 'id', `team ${n}`);
}

/** The bench user invites `member` into the team, and `member` accepts with its own session. */
async function join(baseUrl: string, ownerCookie: string, teamId: string, member: Member): Promise<void> {
  const invited = await call(baseUrl, 'POST', `/api/v1/teams/${encodeURIComponent(teamId)}/members`, ownerCookie, 201, { email: member.account.email, role: 'member' });
  const token = dataString(invited.parsed, 'token', `invitation of ${member.account.email}`);
  await call(baseUrl, 'POST', `/api/v1/team-invitations/${encodeURIComponent(token)}/accept`, member.cookie, 200, {});
}

function memberUser({ user }: SessionData): MemberUser {
  return { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName };
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Builds the bench user's teams on the product at `baseUrl`, and checks both scenarios' answers once. */
export async function seedTeams(baseUrl: string, bench: Session, log: (message: string) => void): Promise<BenchTeams> {
  const personalTeamId = bench.session.activeTeamId;
  if (!personalTeamId) throw new Error('the bench user has no active (personal) team');

  let started = performance.now();
  const accounts = Array.from({ length: membersPerTeam - 1 }, (_, i) => memberAccount(i + 1));
  const others = await mapLimited(accounts, signupsInFlight, (account) => signUp(baseUrl, account));
  const created = await mapLimited(
    Array.from({ length: teamCount - 1 }, (_, i) => i + 1),
    creationsInFlight,
    (n) => createTeam(baseUrl, bench.cookie, n),
  );
  log(`teams: ${others.length} accounts signed up, ${created.length} teams created in ${seconds(started)}`);

  started = performance.now();
  const teamIds = [personalTeamId, ...created];
  const joins = teamIds.flatMap((teamId) => others.map((member) => ({ teamId, member })));
  await mapLimited(joins, invitationsInFlight, ({ teamId, member }) => join(baseUrl, bench.cookie, teamId, member));
  log(`teams: ${joins.length} invitations sent and accepted in ${seconds(started)}`);

  const teams = { teamIds, listedTeamId: personalTeamId, members: [memberUser(bench.session), ...others.map((m) => memberUser(m.session))] };
  const list = await call(baseUrl, 'GET', teamsListPath, bench.cookie, 200);
  const members = await call(baseUrl, 'GET', teamMembersPath(personalTeamId), bench.cookie, 200);
  const problem = teamsListProblem(list.parsed, teams) ?? teamMembersProblem(members.parsed, teams);
  if (problem) throw new Error(`teams after seeding: ${problem}`);
  return { ...teams, answerLengths: { list: list.text.length, members: members.text.length } };
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const sameSet = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && new Set(a).size === a.length && b.every((v) => a.includes(v));
const keysOf = (o: Json) => Object.keys(o).sort().join(',');

/** `data` and `meta` of a success envelope whose `meta` holds (at least) `expectedMeta`, or what is wrong. */
function page(answer: unknown, expectedMeta: Json): Json[] | string {
  if (!isRecord(answer) || answer.success !== true) return 'not a success envelope';
  const { data, meta } = answer;
  if (!Array.isArray(data) || !data.every(isRecord)) return 'data is not an array of objects';
  if (!isRecord(meta) || Object.entries(expectedMeta).some(([key, value]) => meta[key] !== value)) {
    return `meta ${JSON.stringify(meta)}, expected ${JSON.stringify(expectedMeta)}`;
  }
  return data;
}

/** What is wrong with an answer to GET teamsListPath, or undefined: exactly the 20 teams, each owned by the bench user with 50 members. */
export function teamsListProblem(answer: unknown, teams: Pick<BenchTeams, 'teamIds'>): string | undefined {
  const data = page(answer, { page: 1, limit: teamCount, total: teamCount, totalPages: 1, hasMore: false });
  if (typeof data === 'string') return data;
  if (!sameSet(data.map((t) => t.id), teams.teamIds)) return `team ids ${JSON.stringify(data.map((t) => t.id))}, expected ${JSON.stringify(teams.teamIds)}`;
  const wrong = data.find((t) => t.userRole !== 'owner' || t.memberCount !== membersPerTeam);
  if (wrong) return `team ${String(wrong.id)}: userRole ${String(wrong.userRole)}, memberCount ${String(wrong.memberCount)} (expected owner, ${membersPerTeam})`;
  return undefined;
}

const memberKeys = 'id,joinedAt,role,teamId,user,userId';
const userKeys = 'email,firstName,id,image,lastName';

function memberProblem(m: Json, teams: Omit<BenchTeams, 'answerLengths'>): string | undefined {
  const expectedUser = teams.members.find((u) => u.id === m.userId);
  const role = m.userId === teams.members[0]?.id ? 'owner' : 'member';
  const { user } = m;
  if (keysOf(m) !== memberKeys || !isRecord(user) || keysOf(user) !== userKeys) return `fields other than {${memberKeys}} with user {${userKeys}}`;
  if (!expectedUser) return 'not one of the seeded users';
  if (typeof m.id !== 'string' || m.teamId !== teams.listedTeamId || m.role !== role) return `id, teamId or role wrong (expected teamId ${teams.listedTeamId}, role ${role})`;
  if (typeof m.joinedAt !== 'string' || Number.isNaN(Date.parse(m.joinedAt))) return 'joinedAt is not a date';
  const { id, email, firstName, lastName } = expectedUser;
  if (user.id !== id || user.email !== email || user.firstName !== firstName || user.lastName !== lastName || user.image !== null) {
    return `user is not ${JSON.stringify({ ...expectedUser, image: null })}`;
  }
  return undefined;
}

/** What is wrong with an answer to GET teamMembersPath(listedTeamId), or undefined: exactly the 50 seeded members. */
export function teamMembersProblem(answer: unknown, teams: Omit<BenchTeams, 'answerLengths'>): string | undefined {
  const data = page(answer, { page: 1, limit: membersPerTeam, total: membersPerTeam });
  if (typeof data === 'string') return data;
  const userIds = data.map((m) => m.userId);
  if (!sameSet(userIds, teams.members.map((u) => u.id))) return `member user ids ${JSON.stringify(userIds)} are not the ${membersPerTeam} seeded users`;
  for (const m of data) {
    const problem = memberProblem(m, teams);
    if (problem) return `member ${JSON.stringify(m)}: ${problem}`;
  }
  return undefined;
}
