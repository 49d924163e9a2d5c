// Team rules. For now: every account gets a personal team it owns (the teams issue adds the rest).
import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/request-db.js';
import { insertTeamWithOwner } from './repository.js';

/** A slug from free text: lowercase alphanumerics and hyphens, with a random suffix for uniqueness. */
function personalSlug(seed: string): string {
  const base = seed.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'team';
  return `${base}-${randomBytes(4).toString('hex')}`;
}

/** Creates the personal team of a new user, owned by them, inside the signup's transaction. */
export function createPersonalTeam(tx: Tx, user: { id: string; email: string; firstName: string }) {
  const name = user.firstName ? `${user.firstName}'s team` : 'Personal team';
  return insertTeamWithOwner(tx, { name: name.slice(0, 100), slug: personalSlug(user.email.split('@')[0] ?? ''), ownerId: user.id });
}
