// Team inputs, validated at both edges with the same schemas.
import { z } from 'zod';
import { emailAddress as email } from '../../shared/validation.js';
import { assignableRoles, teamRoles } from './rules.js';


export const teamSlug = z
  .string()
  .trim()
  .min(2, 'must be at least 2 characters')
  .max(50, 'must be at most 50 characters')
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single hyphens');

const name = z.string().trim().min(2, 'must be at least 2 characters').max(100, 'must be at most 100 characters');
const description = z.string().trim().max(500, 'must be at most 500 characters');

export const createTeamInput = z.strictObject({ name, slug: teamSlug, description: description.nullish() });
export type CreateTeamInput = z.output<typeof createTeamInput>;

export const updateTeamInput = z
  .strictObject({
    name: name.optional(),
    description: description.nullish(),
    avatarUrl: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2000).nullish(),
  })
  .refine((v) => Object.keys(v).length > 0, 'at least one of name, description, avatarUrl is required');
export type UpdateTeamInput = z.output<typeof updateTeamInput>;

export const listTeamsQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  search: z.string().trim().max(100).optional(),
  sort: z.enum(['createdAt', 'updatedAt', 'name']).default('createdAt'),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type ListTeamsQuery = z.output<typeof listTeamsQuery>;

export const listMembersQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  role: z.enum(teamRoles).optional(),
});
export type ListMembersQuery = z.output<typeof listMembersQuery>;

export const changeRoleInput = z.strictObject({ role: z.enum(teamRoles) });
export const inviteInput = z.strictObject({ email, role: z.enum(assignableRoles) });
export type InviteInput = z.output<typeof inviteInput>;
export const switchTeamInput = z.strictObject({ teamId: z.string().trim().min(1).max(100) });

export const paging = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

