// The active team: its plan and what each of its limits has used; its members with their roles
// (changed and removed by owners and admins, as the teams' rules allow: teams/rules.ts); its pending
// invitations (seen and cancelled by owners and admins); and an invitation by e-mail. What the
// caller's role may not do is disabled or left out, with the reason.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, run, type Session } from './api.js';
import { Field, fieldErrorsOf, Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import type { TeamMembersQuery, TeamPendingInvitationsQuery, TeamUsageQuery } from './generated/graphql/graphql.js';
import type { Team } from './team.js';

const planQuery = graphql(`
  query TeamPlan($teamId: ID!) {
    teamSubscription(teamId: $teamId) {
      plan {
        name
        limits {
          slug
        }
      }
    }
  }
`);
const usageQuery = graphql(`
  query TeamUsage($teamId: ID!, $limitSlug: String!) {
    teamUsage(teamId: $teamId, limitSlug: $limitSlug) {
      limitSlug
      current
      max
    }
  }
`);
const membersQuery = graphql(`
  query TeamMembers($teamId: ID!) {
    teamMembers(teamId: $teamId, limit: 100) {
      items {
        id
        role
        userId
        user {
          email
          firstName
          lastName
        }
      }
    }
  }
`);
const pendingQuery = graphql(`
  query TeamPendingInvitations($teamId: ID!) {
    teamPendingInvitations(teamId: $teamId) {
      id
      email
      role
      expiresAt
      invitedByUser {
        firstName
        lastName
      }
    }
  }
`);
const cancelMutation = graphql(`
  mutation CancelTeamInvitation($id: ID!) {
    cancelTeamInvitation(id: $id)
  }
`);
const roleMutation = graphql(`
  mutation ChangeTeamMemberRole($teamId: ID!, $memberId: ID!, $role: String!) {
    changeTeamMemberRole(teamId: $teamId, memberId: $memberId, role: $role) {
      id
    }
  }
`);
const removeMutation = graphql(`
  mutation RemoveTeamMember($teamId: ID!, $memberId: ID!) {
    removeTeamMember(teamId: $teamId, memberId: $memberId)
  }
`);
const inviteMutation = graphql(`
  mutation InviteTeamMember($teamId: ID!, $input: InviteTeamMemberInput!) {
    inviteTeamMember(teamId: $teamId, input: $input) {
      emailSent
    }
  }
`);

type Member = TeamMembersQuery['teamMembers']['items'][number];
type PendingInvitation = TeamPendingInvitationsQuery['teamPendingInvitations'][number];
type Usage = TeamUsageQuery['teamUsage'];

const assignable = ['admin', 'member', 'viewer'];

/** Why `role` may not act on `member` (role changes and removal), or null when it may: the teams' rules. */
function refusalOn(role: string | null, member: Member, me: string): string | null {
  if (role !== 'owner' && role !== 'admin') return 'Only owners and admins manage members';
  if (member.role === 'owner') return "The owner's role never changes";
  if (member.userId === me) return 'Nobody changes their own role';
  if (member.role === 'admin' && role !== 'owner') return 'Only the owner acts on an admin';
  return null;
}

function PlanUsage({ team }: { team: Team }) {
  const [plan, setPlan] = useState<{ name: string } | null>(null);
  const [usage, setUsage] = useState<Usage[]>([]);
  useEffect(() => {
    // A team switched meanwhile: its answers, not this one's, are shown.
    let current = true;
    void (async () => {
      const { data } = await run(planQuery, { teamId: team.id });
      const found = data?.teamSubscription.plan ?? null;
      const answers = await Promise.all((found?.limits ?? []).map((limit) => run(usageQuery, { teamId: team.id, limitSlug: limit.slug })));
      if (!current) return;
      setPlan(found);
      setUsage(answers.flatMap(({ data: answer }) => (answer ? [answer.teamUsage] : [])));
    })();
    return () => void (current = false);
  }, [team.id]);
  return (
    <section aria-labelledby="plan-heading">
      <h2 id="plan-heading">Plan{plan && `: ${plan.name}`}</h2>
      {usage.length ? (
        <ul class="usage">
          {usage.map((u) => (
            <li key={u.limitSlug}>
              <span>{u.limitSlug.replace(/_/g, ' ')}</span>
              {u.max === null ? (
                <span>{u.current} (no limit)</span>
              ) : (
                <>
                  <meter min={0} max={u.max} value={u.current} aria-label={`${u.limitSlug} used`} />
                  <span>
                    {u.current} of {u.max}
                  </span>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">{plan ? 'This plan sets no limit.' : 'No subscription.'}</p>
      )}
    </section>
  );
}

/** The team's pending invitations, for owners and admins (who may cancel them); `sent` changes when one is sent. */
function PendingInvitations({ team, sent }: { team: Team; sent: number }) {
  const manages = team.userRole === 'owner' || team.userRole === 'admin';
  const [invitations, setInvitations] = useState<PendingInvitation[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const fetchList = async () => {
    const { data, error } = await run(pendingQuery, { teamId: team.id });
    return { list: data?.teamPendingInvitations ?? [], problem: error ? messageOf(error) : null };
  };
  const load = async () => {
    const answer = await fetchList();
    setInvitations(answer.list);
    if (answer.problem) setProblem(answer.problem);
  };
  useEffect(() => {
    if (!manages) return;
    // A team switched meanwhile: its answer, not this one's, is shown.
    let current = true;
    void fetchList().then((answer) => {
      if (!current) return;
      setInvitations(answer.list);
      setProblem(answer.problem);
    });
    return () => {
      current = false;
    };
  }, [team.id, manages, sent]);
  const cancel = async (invitation: PendingInvitation) => {
    if (!confirm(`Cancel the invitation to ${invitation.email}?`)) return;
    const { error } = await run(cancelMutation, { id: invitation.id });
    setProblem(error ? messageOf(error, { INVITATION_NOT_FOUND: `The invitation to ${invitation.email} is no longer pending.` }) : null);
    await load();
  };
  return (
    <section aria-labelledby="pending-heading">
      <h2 id="pending-heading">Pending invitations</h2>
      {!manages ? (
        <p class="hint">Only owners and admins see and cancel the team's invitations.</p>
      ) : invitations === null ? (
        <p aria-busy="true">Loading…</p>
      ) : invitations.length ? (
        <ul class="sessions">
          {invitations.map((i) => {
            const inviter = i.invitedByUser && [i.invitedByUser.firstName, i.invitedByUser.lastName].filter(Boolean).join(' ');
            return (
              <li key={i.id}>
                <span>
                  <strong>{i.email}</strong> · {i.role} · expires <time dateTime={i.expiresAt}>{new Date(i.expiresAt).toLocaleString()}</time>
                  {inviter ? ` · invited by ${inviter}` : ''}
                </span>
                <button type="button" class="secondary" onClick={() => void cancel(i)}>
                  Cancel the invitation to {i.email}
                </button>
              </li>
            );
          })}
        </ul>
      ) : (
        <p>No pending invitation.</p>
      )}
      <Problem text={problem} />
    </section>
  );
}

export function TeamPage({ session, team }: { session: Session; team: Team | null }) {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [invited, setInvited] = useState<string | null>(null);
  const [sent, setSent] = useState(0);
  const load = async () => {
    if (!team) return;
    const { data, error } = await run(membersQuery, { teamId: team.id });
    setProblem(error ? messageOf(error) : null);
    setMembers(data?.teamMembers.items ?? []);
  };
  useEffect(() => void load(), [team?.id]);
  if (!team) {
    return (
      <main class="wide">
        <h1>Team</h1>
        <p>No active team.</p>
      </main>
    );
  }
  const role = team.userRole;
  const inviting = role === 'owner' || role === 'admin' ? null : 'Only owners and admins invite';
  const setRole = async (member: Member, next: string) => {
    const { error } = await run(roleMutation, { teamId: team.id, memberId: member.id, role: next });
    setProblem(error ? messageOf(error) : null);
    await load();
  };
  const remove = async (member: Member) => {
    if (!confirm(`Remove ${member.user.email} from ${team.name}?`)) return;
    const { error } = await run(removeMutation, { teamId: team.id, memberId: member.id });
    setProblem(error ? messageOf(error) : null);
    await load();
  };
  const invite = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const email = String(form.get('email'));
    const { error } = await run(inviteMutation, { teamId: team.id, input: { email, role: String(form.get('role')) } });
    setErrors(fieldErrorsOf(error));
    setProblem(error ? messageOf(error, { ALREADY_MEMBER: `${email} is a member already.`, INVITATION_EXISTS: `${email} has an invitation already.` }) : null);
    setInvited(error ? null : `Invitation sent to ${email}.`);
    if (!error) {
      formElement.reset();
      setSent((n) => n + 1);
    }
  };
  return (
    <main class="wide">
      <h1>{team.name}</h1>
      <p>
        Your role: <strong>{role}</strong>. {team.memberCount} member{team.memberCount === 1 ? '' : 's'}.
      </p>
      <PlanUsage team={team} />
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        {members === null ? (
          <p aria-busy="true">Loading…</p>
        ) : (
          <ul class="sessions">
            {members.map((m) => {
              const refused = refusalOn(role, m, session.user.id);
              const name = [m.user.firstName, m.user.lastName].filter(Boolean).join(' ');
              return (
                <li key={m.id}>
                  <span>
                    {name ? `${name} · ` : ''}
                    {m.user.email}
                  </span>
                  <span class="actions">
                    <select aria-label={`Role of ${m.user.email}`} value={m.role} disabled={refused !== null} title={refused ?? undefined} onChange={(e) => void setRole(m, (e.currentTarget as HTMLSelectElement).value)}>
                      {(m.role === 'owner' ? ['owner'] : assignable).map((r) => (
                        <option key={r} value={r} disabled={r === 'admin' && role !== 'owner'}>
                          {r}
                        </option>
                      ))}
                    </select>
                    <button type="button" class="secondary" disabled={refused !== null} title={refused ?? undefined} onClick={() => void remove(m)}>
                      Remove {m.user.email}
                    </button>
                  </span>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <PendingInvitations team={team} sent={sent} />
      <section aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        {inviting && <p class="hint">{inviting}.</p>}
        <form onSubmit={(e) => void invite(e)} noValidate>
          <fieldset disabled={inviting !== null}>
            <legend class="visually-hidden">Invitation</legend>
            <Field name="email" label="E-mail" type="email" autoComplete="off" errors={errors} />
            <div class="field">
              <label for="invite-role">Role</label>
              <select id="invite-role" name="role" defaultValue="member">
                {assignable.map((r) => (
                  <option key={r} value={r} disabled={r === 'admin' && role !== 'owner'}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit">Send the invitation</button>
          </fieldset>
        </form>
        {invited && <p role="status">{invited}</p>}
      </section>
      <Problem text={problem} />
    </main>
  );
}
