/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type ChangePasswordInput = {
  currentPassword: string;
  newPassword: string;
};

export type ConfirmTwoFactorInput = {
  /** The 6 digits of the authenticator app. */
  code: string;
};

export type CreateApiKeyInput = {
  /** ISO 8601 date-time in the future. */
  expiresAt?: string | null | undefined;
  name: string;
  scopes: Array<string>;
};

export type CreateWebhookEndpointInput = {
  /** Default true. */
  active?: boolean | null | undefined;
  description?: string | null | undefined;
  eventTypes: Array<string>;
  /** http(s); private, loopback and link-local destinations are refused. */
  url: string;
};

export type EnrollTwoFactorInput = {
  password: string;
};

export type InviteTeamMemberInput = {
  email: string;
  /** admin, member or viewer */
  role: string;
};

export type LoginInput = {
  email: string;
  password: string;
};

/** By MIME type prefix. */
export type MediaTypeFilter =
  | 'all'
  | 'image'
  | 'video';

export type RequestPasswordResetInput = {
  email: string;
};

export type ResendVerificationInput = {
  email: string;
};

export type ResetPasswordInput = {
  /** The new password (at least 8 characters). */
  password: string;
  /** The token of the e-mailed link. */
  token: string;
};

export type SignupInput = {
  email: string;
  firstName: string;
  lastName: string;
  password: string;
};

export type SignupWithInviteInput = {
  email: string;
  firstName: string;
  inviteToken: string;
  lastName: string;
  password: string;
};

export type TwoFactorCodeInput = {
  /** The 6 digits of the authenticator app, or a recovery code. */
  code: string;
};

export type TwoFactorSignInInput = {
  challenge: string;
  /** The 6 digits of the authenticator app, or a recovery code. */
  code: string;
};

/** title, alt, caption: a string, or null to clear it; at least one. */
export type UpdateMediaInput = {
  alt?: string | null | undefined;
  caption?: string | null | undefined;
  title?: string | null | undefined;
};

/** At least one field; description null clears it. */
export type UpdateWebhookEndpointInput = {
  active?: boolean | null | undefined;
  description?: string | null | undefined;
  eventTypes?: Array<string> | null | undefined;
  url?: string | null | undefined;
};

export type VerifyEmailInput = {
  /** The token of the e-mailed link. */
  token: string;
};

export type MyIdentitiesQueryVariables = Exact<{ [key: string]: never; }>;


export type MyIdentitiesQuery = { myIdentities: Array<{ id: string, provider: string, email: string }> };

export type UnlinkIdentityMutationVariables = Exact<{
  id: string | number;
}>;


export type UnlinkIdentityMutation = { unlinkIdentity: boolean };

export type ChangePasswordMutationVariables = Exact<{
  input: ChangePasswordInput;
}>;


export type ChangePasswordMutation = { changePassword: { endedSessions: number } };

export type MySessionsQueryVariables = Exact<{ [key: string]: never; }>;


export type MySessionsQuery = { mySessions: Array<{ id: string, current: boolean, ipAddress: string | null, userAgent: string | null, device: string | null, lastSeenAt: string }> };

export type RevokeSessionMutationVariables = Exact<{
  id: string | number;
}>;


export type RevokeSessionMutation = { revokeSession: boolean };

export type RevokeOtherSessionsMutationVariables = Exact<{ [key: string]: never; }>;


export type RevokeOtherSessionsMutation = { revokeOtherSessions: number };

export type LogoutMutationVariables = Exact<{ [key: string]: never; }>;


export type LogoutMutation = { logout: boolean };

export type ApiKeysQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiKeysQuery = { apiKeys: Array<{ id: string, name: string, keyPrefix: string, scopes: Array<string>, status: string, lastUsedAt: string | null }> };

export type ApiKeyUsageQueryVariables = Exact<{
  id: string | number;
}>;


export type ApiKeyUsageQuery = { apiKey: { id: string, totalRequests: number, requestsLast24h: number, lastUsedAt: string | null } };

export type CreateApiKeyMutationVariables = Exact<{
  input: CreateApiKeyInput;
}>;


export type CreateApiKeyMutation = { createApiKey: { id: string, name: string, key: string } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string | number;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string, status: string } };

export type CurrentSessionQueryVariables = Exact<{ [key: string]: never; }>;


export type CurrentSessionQuery = { me: { activeTeamId: string | null, twoFactorEnabled: boolean, user: { id: string, email: string, role: string, firstName: string, lastName: string, image: string | null } } };

export type AcceptTeamInvitationMutationVariables = Exact<{
  token: string;
}>;


export type AcceptTeamInvitationMutation = { acceptTeamInvitation: { teamId: string } };

export type DeclineTeamInvitationMutationVariables = Exact<{
  token: string;
}>;


export type DeclineTeamInvitationMutation = { declineTeamInvitation: { status: string } };

export type SignupWithInviteMutationVariables = Exact<{
  input: SignupWithInviteInput;
}>;


export type SignupWithInviteMutation = { signupWithInvite: { teamId: string } };

export type RequestPasswordResetMutationVariables = Exact<{
  input: RequestPasswordResetInput;
}>;


export type RequestPasswordResetMutation = { requestPasswordReset: boolean };

export type ResetPasswordMutationVariables = Exact<{
  input: ResetPasswordInput;
}>;


export type ResetPasswordMutation = { resetPassword: boolean };

export type VerifyEmailMutationVariables = Exact<{
  input: VerifyEmailInput;
}>;


export type VerifyEmailMutation = { verifyEmail: { activeTeamId: string | null } };

export type MediaListQueryVariables = Exact<{
  limit?: number | null | undefined;
  offset?: number | null | undefined;
  type?: MediaTypeFilter | null | undefined;
  search?: string | null | undefined;
  tagIds?: Array<string> | string | null | undefined;
}>;


export type MediaListQuery = { mediaList: { total: number, items: Array<{ id: string, filename: string, mimeType: string, fileSize: number, width: number | null, height: number | null, createdAt: string, url: string, title: string | null, alt: string | null, caption: string | null, renditions: Array<{ width: number, url: string }> }> } };

export type MediaTagsQueryVariables = Exact<{ [key: string]: never; }>;


export type MediaTagsQuery = { mediaTags: Array<{ id: string, name: string }> };

export type MediaTagIdsQueryVariables = Exact<{
  id: string | number;
}>;


export type MediaTagIdsQuery = { media: { id: string, tags: Array<{ id: string }> } };

export type UpdateMediaMutationVariables = Exact<{
  id: string | number;
  input: UpdateMediaInput;
}>;


export type UpdateMediaMutation = { updateMedia: { id: string } };

export type SetMediaTagsMutationVariables = Exact<{
  mediaId: string | number;
  tagIds: Array<string | number> | string | number;
}>;


export type SetMediaTagsMutation = { setMediaTags: Array<{ id: string }> };

export type DeleteMediaMutationVariables = Exact<{
  id: string | number;
}>;


export type DeleteMediaMutation = { deleteMedia: { id: string } };

export type UploadMediaMutationVariables = Exact<{
  files: Array<File> | File;
}>;


export type UploadMediaMutation = { uploadMedia: { media: Array<{ id: string, url: string, filename: string, mimeType: string }>, duplicates: Array<{ filename: string }> } };

export type ScheduledActionsQueryVariables = Exact<{
  status?: string | null | undefined;
  actionType?: string | null | undefined;
  page?: number | null | undefined;
  limit?: number | null | undefined;
}>;


export type ScheduledActionsQuery = { scheduledActions: { actions: Array<{ id: string, actionType: string, status: string, scheduledAt: string, attempts: number, maxRetries: number, recurringInterval: string | null, errorMessage: string | null, payload: Record<string, unknown>, result: Record<string, unknown> | null }>, pagination: { total: number, totalPages: number }, meta: { registeredActionTypes: Array<string> } } };

export type RetryScheduledActionMutationVariables = Exact<{
  id: string | number;
}>;


export type RetryScheduledActionMutation = { retryScheduledAction: { id: string, status: string } };

export type CancelScheduledActionMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelScheduledActionMutation = { cancelScheduledAction: { id: string, status: string } };

export type SignInProvidersQueryVariables = Exact<{ [key: string]: never; }>;


export type SignInProvidersQuery = { signInProviders: Array<{ id: string, name: string, signInUrl: string }> };

export type LoginMutationVariables = Exact<{
  input: LoginInput;
}>;


export type LoginMutation = { login: { twoFactorRequired: boolean, challenge: string | null } };

export type CompleteTwoFactorSignInMutationVariables = Exact<{
  input: TwoFactorSignInInput;
}>;


export type CompleteTwoFactorSignInMutation = { completeTwoFactorSignIn: { activeTeamId: string | null } };

export type SignupMutationVariables = Exact<{
  input: SignupInput;
}>;


export type SignupMutation = { signup: { emailVerificationRequired: boolean } };

export type ResendVerificationEmailMutationVariables = Exact<{
  input: ResendVerificationInput;
}>;


export type ResendVerificationEmailMutation = { resendVerificationEmail: boolean };

export type TeamPlanQueryVariables = Exact<{
  teamId: string | number;
}>;


export type TeamPlanQuery = { teamSubscription: { plan: { name: string, limits: Array<{ slug: string }> } } };

export type TeamUsageQueryVariables = Exact<{
  teamId: string | number;
  limitSlug: string;
}>;


export type TeamUsageQuery = { teamUsage: { limitSlug: string, current: number, max: number | null } };

export type TeamMembersQueryVariables = Exact<{
  teamId: string | number;
}>;


export type TeamMembersQuery = { teamMembers: { items: Array<{ id: string, role: string, userId: string, user: { email: string, firstName: string, lastName: string } }> } };

export type TeamPendingInvitationsQueryVariables = Exact<{
  teamId: string | number;
}>;


export type TeamPendingInvitationsQuery = { teamPendingInvitations: Array<{ id: string, email: string, role: string, expiresAt: string, invitedByUser: { firstName: string, lastName: string } | null }> };

export type CancelTeamInvitationMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelTeamInvitationMutation = { cancelTeamInvitation: boolean };

export type ChangeTeamMemberRoleMutationVariables = Exact<{
  teamId: string | number;
  memberId: string | number;
  role: string;
}>;


export type ChangeTeamMemberRoleMutation = { changeTeamMemberRole: { id: string } };

export type RemoveTeamMemberMutationVariables = Exact<{
  teamId: string | number;
  memberId: string | number;
}>;


export type RemoveTeamMemberMutation = { removeTeamMember: boolean };

export type InviteTeamMemberMutationVariables = Exact<{
  teamId: string | number;
  input: InviteTeamMemberInput;
}>;


export type InviteTeamMemberMutation = { inviteTeamMember: { emailSent: boolean } };

export type TeamsQueryVariables = Exact<{ [key: string]: never; }>;


export type TeamsQuery = { teams: { items: Array<{ id: string, name: string, slug: string, userRole: string | null, memberCount: number }> } };

export type SwitchTeamMutationVariables = Exact<{
  teamId: string | number;
}>;


export type SwitchTeamMutation = { switchTeam: { activeTeamId: string } };

export type EnrollTwoFactorMutationVariables = Exact<{
  input: EnrollTwoFactorInput;
}>;


export type EnrollTwoFactorMutation = { enrollTwoFactor: { secret: string, otpauthUri: string } };

export type ConfirmTwoFactorMutationVariables = Exact<{
  input: ConfirmTwoFactorInput;
}>;


export type ConfirmTwoFactorMutation = { confirmTwoFactor: { recoveryCodes: Array<string> } };

export type DisableTwoFactorMutationVariables = Exact<{
  input: TwoFactorCodeInput;
}>;


export type DisableTwoFactorMutation = { disableTwoFactor: boolean };

export type WebhookEndpointsQueryVariables = Exact<{
  limit?: number | null | undefined;
}>;


export type WebhookEndpointsQuery = { webhookEndpoints: { items: Array<{ id: string, url: string, description: string | null, eventTypes: Array<string>, active: boolean }> } };

export type WebhookDeliveriesQueryVariables = Exact<{
  id: string | number;
  limit?: number | null | undefined;
}>;


export type WebhookDeliveriesQuery = { webhookEndpoint: { id: string, deliveries: { items: Array<{ id: string, eventType: string, status: string, statusCode: number | null, error: string | null, attempt: number, createdAt: string }> } } };

export type CreateWebhookEndpointMutationVariables = Exact<{
  input: CreateWebhookEndpointInput;
}>;


export type CreateWebhookEndpointMutation = { createWebhookEndpoint: { id: string, url: string, secret: string } };

export type UpdateWebhookEndpointMutationVariables = Exact<{
  id: string | number;
  input: UpdateWebhookEndpointInput;
}>;


export type UpdateWebhookEndpointMutation = { updateWebhookEndpoint: { id: string, active: boolean } };

export type DeleteWebhookEndpointMutationVariables = Exact<{
  id: string | number;
}>;


export type DeleteWebhookEndpointMutation = { deleteWebhookEndpoint: { id: string } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const MyIdentitiesDocument = new TypedDocumentString(`
    query MyIdentities {
  myIdentities {
    id
    provider
    email
  }
}
    `) as unknown as TypedDocumentString<MyIdentitiesQuery, MyIdentitiesQueryVariables>;
export const UnlinkIdentityDocument = new TypedDocumentString(`
    mutation UnlinkIdentity($id: ID!) {
  unlinkIdentity(id: $id)
}
    `) as unknown as TypedDocumentString<UnlinkIdentityMutation, UnlinkIdentityMutationVariables>;
export const ChangePasswordDocument = new TypedDocumentString(`
    mutation ChangePassword($input: ChangePasswordInput!) {
  changePassword(input: $input) {
    endedSessions
  }
}
    `) as unknown as TypedDocumentString<ChangePasswordMutation, ChangePasswordMutationVariables>;
export const MySessionsDocument = new TypedDocumentString(`
    query MySessions {
  mySessions {
    id
    current
    ipAddress
    userAgent
    device
    lastSeenAt
  }
}
    `) as unknown as TypedDocumentString<MySessionsQuery, MySessionsQueryVariables>;
export const RevokeSessionDocument = new TypedDocumentString(`
    mutation RevokeSession($id: ID!) {
  revokeSession(id: $id)
}
    `) as unknown as TypedDocumentString<RevokeSessionMutation, RevokeSessionMutationVariables>;
export const RevokeOtherSessionsDocument = new TypedDocumentString(`
    mutation RevokeOtherSessions {
  revokeOtherSessions
}
    `) as unknown as TypedDocumentString<RevokeOtherSessionsMutation, RevokeOtherSessionsMutationVariables>;
export const LogoutDocument = new TypedDocumentString(`
    mutation Logout {
  logout
}
    `) as unknown as TypedDocumentString<LogoutMutation, LogoutMutationVariables>;
export const ApiKeysDocument = new TypedDocumentString(`
    query ApiKeys {
  apiKeys {
    id
    name
    keyPrefix
    scopes
    status
    lastUsedAt
  }
}
    `) as unknown as TypedDocumentString<ApiKeysQuery, ApiKeysQueryVariables>;
export const ApiKeyUsageDocument = new TypedDocumentString(`
    query ApiKeyUsage($id: ID!) {
  apiKey(id: $id) {
    id
    totalRequests
    requestsLast24h
    lastUsedAt
  }
}
    `) as unknown as TypedDocumentString<ApiKeyUsageQuery, ApiKeyUsageQueryVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    id
    name
    key
  }
}
    `) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($id: ID!) {
  revokeApiKey(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const CurrentSessionDocument = new TypedDocumentString(`
    query CurrentSession {
  me {
    user {
      id
      email
      role
      firstName
      lastName
      image
    }
    activeTeamId
    twoFactorEnabled
  }
}
    `) as unknown as TypedDocumentString<CurrentSessionQuery, CurrentSessionQueryVariables>;
export const AcceptTeamInvitationDocument = new TypedDocumentString(`
    mutation AcceptTeamInvitation($token: String!) {
  acceptTeamInvitation(token: $token) {
    teamId
  }
}
    `) as unknown as TypedDocumentString<AcceptTeamInvitationMutation, AcceptTeamInvitationMutationVariables>;
export const DeclineTeamInvitationDocument = new TypedDocumentString(`
    mutation DeclineTeamInvitation($token: String!) {
  declineTeamInvitation(token: $token) {
    status
  }
}
    `) as unknown as TypedDocumentString<DeclineTeamInvitationMutation, DeclineTeamInvitationMutationVariables>;
export const SignupWithInviteDocument = new TypedDocumentString(`
    mutation SignupWithInvite($input: SignupWithInviteInput!) {
  signupWithInvite(input: $input) {
    teamId
  }
}
    `) as unknown as TypedDocumentString<SignupWithInviteMutation, SignupWithInviteMutationVariables>;
export const RequestPasswordResetDocument = new TypedDocumentString(`
    mutation RequestPasswordReset($input: RequestPasswordResetInput!) {
  requestPasswordReset(input: $input)
}
    `) as unknown as TypedDocumentString<RequestPasswordResetMutation, RequestPasswordResetMutationVariables>;
export const ResetPasswordDocument = new TypedDocumentString(`
    mutation ResetPassword($input: ResetPasswordInput!) {
  resetPassword(input: $input)
}
    `) as unknown as TypedDocumentString<ResetPasswordMutation, ResetPasswordMutationVariables>;
export const VerifyEmailDocument = new TypedDocumentString(`
    mutation VerifyEmail($input: VerifyEmailInput!) {
  verifyEmail(input: $input) {
    activeTeamId
  }
}
    `) as unknown as TypedDocumentString<VerifyEmailMutation, VerifyEmailMutationVariables>;
export const MediaListDocument = new TypedDocumentString(`
    query MediaList($limit: Int, $offset: Int, $type: MediaTypeFilter, $search: String, $tagIds: [String!]) {
  mediaList(
    limit: $limit
    offset: $offset
    type: $type
    search: $search
    tagIds: $tagIds
  ) {
    total
    items {
      id
      filename
      mimeType
      fileSize
      width
      height
      createdAt
      url
      title
      alt
      caption
      renditions {
        width
        url
      }
    }
  }
}
    `) as unknown as TypedDocumentString<MediaListQuery, MediaListQueryVariables>;
export const MediaTagsDocument = new TypedDocumentString(`
    query MediaTags {
  mediaTags {
    id
    name
  }
}
    `) as unknown as TypedDocumentString<MediaTagsQuery, MediaTagsQueryVariables>;
export const MediaTagIdsDocument = new TypedDocumentString(`
    query MediaTagIds($id: ID!) {
  media(id: $id) {
    id
    tags {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<MediaTagIdsQuery, MediaTagIdsQueryVariables>;
export const UpdateMediaDocument = new TypedDocumentString(`
    mutation UpdateMedia($id: ID!, $input: UpdateMediaInput!) {
  updateMedia(id: $id, input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<UpdateMediaMutation, UpdateMediaMutationVariables>;
export const SetMediaTagsDocument = new TypedDocumentString(`
    mutation SetMediaTags($mediaId: ID!, $tagIds: [ID!]!) {
  setMediaTags(mediaId: $mediaId, tagIds: $tagIds) {
    id
  }
}
    `) as unknown as TypedDocumentString<SetMediaTagsMutation, SetMediaTagsMutationVariables>;
export const DeleteMediaDocument = new TypedDocumentString(`
    mutation DeleteMedia($id: ID!) {
  deleteMedia(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeleteMediaMutation, DeleteMediaMutationVariables>;
export const UploadMediaDocument = new TypedDocumentString(`
    mutation UploadMedia($files: [Upload!]!) {
  uploadMedia(files: $files) {
    media {
      id
      url
      filename
      mimeType
    }
    duplicates {
      filename
    }
  }
}
    `) as unknown as TypedDocumentString<UploadMediaMutation, UploadMediaMutationVariables>;
export const ScheduledActionsDocument = new TypedDocumentString(`
    query ScheduledActions($status: String, $actionType: String, $page: Int, $limit: Int) {
  scheduledActions(
    status: $status
    actionType: $actionType
    page: $page
    limit: $limit
  ) {
    actions {
      id
      actionType
      status
      scheduledAt
      attempts
      maxRetries
      recurringInterval
      errorMessage
      payload
      result
    }
    pagination {
      total
      totalPages
    }
    meta {
      registeredActionTypes
    }
  }
}
    `) as unknown as TypedDocumentString<ScheduledActionsQuery, ScheduledActionsQueryVariables>;
export const RetryScheduledActionDocument = new TypedDocumentString(`
    mutation RetryScheduledAction($id: ID!) {
  retryScheduledAction(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<RetryScheduledActionMutation, RetryScheduledActionMutationVariables>;
export const CancelScheduledActionDocument = new TypedDocumentString(`
    mutation CancelScheduledAction($id: ID!) {
  cancelScheduledAction(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<CancelScheduledActionMutation, CancelScheduledActionMutationVariables>;
export const SignInProvidersDocument = new TypedDocumentString(`
    query SignInProviders {
  signInProviders {
    id
    name
    signInUrl
  }
}
    `) as unknown as TypedDocumentString<SignInProvidersQuery, SignInProvidersQueryVariables>;
export const LoginDocument = new TypedDocumentString(`
    mutation Login($input: LoginInput!) {
  login(input: $input) {
    twoFactorRequired
    challenge
  }
}
    `) as unknown as TypedDocumentString<LoginMutation, LoginMutationVariables>;
export const CompleteTwoFactorSignInDocument = new TypedDocumentString(`
    mutation CompleteTwoFactorSignIn($input: TwoFactorSignInInput!) {
  completeTwoFactorSignIn(input: $input) {
    activeTeamId
  }
}
    `) as unknown as TypedDocumentString<CompleteTwoFactorSignInMutation, CompleteTwoFactorSignInMutationVariables>;
export const SignupDocument = new TypedDocumentString(`
    mutation Signup($input: SignupInput!) {
  signup(input: $input) {
    emailVerificationRequired
  }
}
    `) as unknown as TypedDocumentString<SignupMutation, SignupMutationVariables>;
export const ResendVerificationEmailDocument = new TypedDocumentString(`
    mutation ResendVerificationEmail($input: ResendVerificationInput!) {
  resendVerificationEmail(input: $input)
}
    `) as unknown as TypedDocumentString<ResendVerificationEmailMutation, ResendVerificationEmailMutationVariables>;
export const TeamPlanDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<TeamPlanQuery, TeamPlanQueryVariables>;
export const TeamUsageDocument = new TypedDocumentString(`
    query TeamUsage($teamId: ID!, $limitSlug: String!) {
  teamUsage(teamId: $teamId, limitSlug: $limitSlug) {
    limitSlug
    current
    max
  }
}
    `) as unknown as TypedDocumentString<TeamUsageQuery, TeamUsageQueryVariables>;
export const TeamMembersDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<TeamMembersQuery, TeamMembersQueryVariables>;
export const TeamPendingInvitationsDocument = new TypedDocumentString(`
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
    `) as unknown as TypedDocumentString<TeamPendingInvitationsQuery, TeamPendingInvitationsQueryVariables>;
export const CancelTeamInvitationDocument = new TypedDocumentString(`
    mutation CancelTeamInvitation($id: ID!) {
  cancelTeamInvitation(id: $id)
}
    `) as unknown as TypedDocumentString<CancelTeamInvitationMutation, CancelTeamInvitationMutationVariables>;
export const ChangeTeamMemberRoleDocument = new TypedDocumentString(`
    mutation ChangeTeamMemberRole($teamId: ID!, $memberId: ID!, $role: String!) {
  changeTeamMemberRole(teamId: $teamId, memberId: $memberId, role: $role) {
    id
  }
}
    `) as unknown as TypedDocumentString<ChangeTeamMemberRoleMutation, ChangeTeamMemberRoleMutationVariables>;
export const RemoveTeamMemberDocument = new TypedDocumentString(`
    mutation RemoveTeamMember($teamId: ID!, $memberId: ID!) {
  removeTeamMember(teamId: $teamId, memberId: $memberId)
}
    `) as unknown as TypedDocumentString<RemoveTeamMemberMutation, RemoveTeamMemberMutationVariables>;
export const InviteTeamMemberDocument = new TypedDocumentString(`
    mutation InviteTeamMember($teamId: ID!, $input: InviteTeamMemberInput!) {
  inviteTeamMember(teamId: $teamId, input: $input) {
    emailSent
  }
}
    `) as unknown as TypedDocumentString<InviteTeamMemberMutation, InviteTeamMemberMutationVariables>;
export const TeamsDocument = new TypedDocumentString(`
    query Teams {
  teams(limit: 100) {
    items {
      id
      name
      slug
      userRole
      memberCount
    }
  }
}
    `) as unknown as TypedDocumentString<TeamsQuery, TeamsQueryVariables>;
export const SwitchTeamDocument = new TypedDocumentString(`
    mutation SwitchTeam($teamId: ID!) {
  switchTeam(teamId: $teamId) {
    activeTeamId
  }
}
    `) as unknown as TypedDocumentString<SwitchTeamMutation, SwitchTeamMutationVariables>;
export const EnrollTwoFactorDocument = new TypedDocumentString(`
    mutation EnrollTwoFactor($input: EnrollTwoFactorInput!) {
  enrollTwoFactor(input: $input) {
    secret
    otpauthUri
  }
}
    `) as unknown as TypedDocumentString<EnrollTwoFactorMutation, EnrollTwoFactorMutationVariables>;
export const ConfirmTwoFactorDocument = new TypedDocumentString(`
    mutation ConfirmTwoFactor($input: ConfirmTwoFactorInput!) {
  confirmTwoFactor(input: $input) {
    recoveryCodes
  }
}
    `) as unknown as TypedDocumentString<ConfirmTwoFactorMutation, ConfirmTwoFactorMutationVariables>;
export const DisableTwoFactorDocument = new TypedDocumentString(`
    mutation DisableTwoFactor($input: TwoFactorCodeInput!) {
  disableTwoFactor(input: $input)
}
    `) as unknown as TypedDocumentString<DisableTwoFactorMutation, DisableTwoFactorMutationVariables>;
export const WebhookEndpointsDocument = new TypedDocumentString(`
    query WebhookEndpoints($limit: Int) {
  webhookEndpoints(limit: $limit) {
    items {
      id
      url
      description
      eventTypes
      active
    }
  }
}
    `) as unknown as TypedDocumentString<WebhookEndpointsQuery, WebhookEndpointsQueryVariables>;
export const WebhookDeliveriesDocument = new TypedDocumentString(`
    query WebhookDeliveries($id: ID!, $limit: Int) {
  webhookEndpoint(id: $id) {
    id
    deliveries(limit: $limit) {
      items {
        id
        eventType
        status
        statusCode
        error
        attempt
        createdAt
      }
    }
  }
}
    `) as unknown as TypedDocumentString<WebhookDeliveriesQuery, WebhookDeliveriesQueryVariables>;
export const CreateWebhookEndpointDocument = new TypedDocumentString(`
    mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) {
    id
    url
    secret
  }
}
    `) as unknown as TypedDocumentString<CreateWebhookEndpointMutation, CreateWebhookEndpointMutationVariables>;
export const UpdateWebhookEndpointDocument = new TypedDocumentString(`
    mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(id: $id, input: $input) {
    id
    active
  }
}
    `) as unknown as TypedDocumentString<UpdateWebhookEndpointMutation, UpdateWebhookEndpointMutationVariables>;
export const DeleteWebhookEndpointDocument = new TypedDocumentString(`
    mutation DeleteWebhookEndpoint($id: ID!) {
  deleteWebhookEndpoint(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeleteWebhookEndpointMutation, DeleteWebhookEndpointMutationVariables>;