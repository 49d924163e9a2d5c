// The names of entities: those the platform keeps for itself (its tables, GraphQL types and record
// fields), and how a definition's names are made from one another (a slug's camelCase, English plurals
// and singulars, the names `entity new` gives).
/** Names every record has; a definition may not declare them. */
export const reservedFieldNames = ['id', 'createdAt', 'updatedAt', 'userId', 'teamId', 'deletedAt', 'metas', 'parentId'] as const;

/** Tables of the platform itself (definitions.test.ts checks the list against prisma/schema.prisma). */
export const reservedTableNames: readonly string[] = [
  'users', 'sessions', 'user_totp', 'user_identities', 'sign_in_flows', 'account_tokens', 'teams',
  'team_members', 'api_keys', 'api_key_usage', 'api_key_audit', 'team_invitations', 'subscriptions',
  'record_versions', 'record_history', 'audit_events', 'entity_events', 'email_outbox', 'media', 'media_tags', 'media_tag_links',
  'media_renditions', 'scheduled_actions', 'webhook_endpoints', 'webhook_deliveries', '_prisma_migrations'
];
/**
 * The platform's own Prisma models and GraphQL types (definitions.test.ts checks this list against
 * prisma/schema.prisma and the built schema). They carry the platform's prefixes (`TeamInvoice`,
 * `TeamPlan`), so that the common words of an app (`Invoice`, `Order`, `Plan`, `Product`) stay free.
 */
export const reservedTypeNames: readonly string[] = [
  'AccountToken', 'ActiveTeam', 'ApiKey', 'ApiKeyAudit', 'ApiKeyAuditEntry', 'ApiKeyUsage', 'AuditEvent', 'AuditLogEntry', 'AuditLogPage',
  'ChangePasswordInput', 'ConfirmTwoFactorInput', 'CreateApiKeyInput', 'CreateMediaInput',
  'CreateMediaTagInput', 'CreateScheduledActionInput', 'CreateTeamInput', 'CreateWebhookEndpointInput',
  'CreatedApiKey', 'CreatedScheduledAction', 'CreatedTeamInvitation', 'DeclinedTeamInvitation',
  'DeletedMedia', 'DeletedWebhookEndpoint', 'EmailOutbox', 'EnrollTwoFactorInput', 'EntityEvent', 'Identity',
  'InviteTeamMemberInput', 'InvitedSignupResult', 'LoginInput', 'LoginResult', 'Media',
  'MediaContentDuplicate', 'MediaDuplicate', 'MediaDuplicateMatch', 'MediaFileInput', 'MediaFileVerdict',
  'MediaOrderBy', 'MediaOrderDir', 'MediaPage', 'MediaRendition', 'MediaRenditionLink', 'MediaTag', 'MediaTagLink',
  'MediaTypeFilter', 'MediaUpload', 'Mutation', 'PasswordChange', 'Query', 'RecordHistory', 'RecordVersion',
  'RequestPasswordResetInput', 'ResendVerificationInput', 'ResetPasswordInput', 'ScheduledAction',
  'ScheduledActionList', 'ScheduledActionListMeta', 'ScheduledActionPagination',
  'ScheduledActionStatusChange', 'Session', 'SessionInfo', 'SignInFlow', 'SignInProvider', 'SignupInput',
  'SignupResult', 'SignupTeam', 'SignupWithInviteInput', 'Subscription', 'Team', 'TeamInvitation',
  'TeamInvitationInviter', 'TeamInvitationListItem', 'TeamInvitationTeam', 'TeamPendingInvitation', 'TeamInvoice', 'TeamInvoicePage',
  'TeamMember', 'TeamMemberPage', 'TeamMemberRoleUpdate', 'TeamMemberUser', 'TeamMembership', 'TeamPage',
  'TeamPlan', 'TeamPlanLimit', 'TeamSubscription', 'TeamUpdate', 'TeamUsage', 'TwoFactorCodeInput',
  'TwoFactorConfirmation', 'TwoFactorEnrollment', 'TwoFactorSignInInput', 'UpdateMediaInput',
  'UpdateTeamInput', 'UpdateWebhookEndpointInput', 'User', 'UserIdentity', 'UserTotp', 'VerifyEmailInput',
  'WebhookDelivery', 'WebhookDeliveryPage', 'WebhookEndpoint', 'WebhookEndpointPage',
  'WebhookEndpointWithSecret'
];

/** A slug as a field name (`customer-notes` → `customerNotes`): a child's field on its parent, a relation's other side. */
export const camelSlug = (slug: string) => slug.replace(/-([a-z0-9])/g, (_m, ch: string) => ch.toUpperCase());

/**
 * The plural of a type name as English writes it, for the GraphQL list (`Category` → `Categories`,
 * `Box` → `Boxes`, `Batch` → `Batches`, `Day` → `Days`); `pluralName` says it where this is wrong.
 */
export function pluralOf(name: string): string {
  if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(name)) return `${name}es`;
  return `${name}s`;
}

/**
 * A new entity's names from its slug (`entity new sales-orders`): the type, singular (`SalesOrder`),
 * its `pluralName` only where English's rule would not give the slug back, the table and the list.
 */
export function entityNaming(slug: string): { name: string; pluralName?: string; table: string; graphqlList: string } {
  const list = camelSlug(slug);
  const plural = list.charAt(0).toUpperCase() + list.slice(1);
  const name = singular(plural);
  return { name, ...(pluralOf(name) === plural ? {} : { pluralName: plural }), table: slug.replace(/-/g, '_'), graphqlList: list };
}

/** A name as a REST slug would write it: `SalesInvoices` → `sales-invoices`. */
export const kebab = (name: string) => name.replace(/[A-Z]/g, (c, i: number) => `${i ? '-' : ''}${c.toLowerCase()}`);

/** One of many, for the field of a set's ids: `tasks` → `task`, `categories` → `category`. */
export const singular = (name: string) => (name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') && !name.endsWith('ss') ? name.slice(0, -1) : name);
