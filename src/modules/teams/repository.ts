// Teams and memberships in the database.
import type { Tx } from '../../db/request-db.js';

export async function insertTeamWithOwner(tx: Tx, data: { name: string; slug: string; ownerId: string }) {
  const team = await tx.team.create({ data, select: { id: true, name: true, slug: true } });
  await tx.teamMember.create({ data: { teamId: team.id, userId: data.ownerId, role: 'owner' }, select: { id: true } });
  return team;
}
