/* eslint-disable */
import * as types from './graphql.js';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query MyIdentities {\n    myIdentities {\n      id\n      provider\n      email\n    }\n  }\n": typeof types.MyIdentitiesDocument,
    "\n  mutation UnlinkIdentity($id: ID!) {\n    unlinkIdentity(id: $id)\n  }\n": typeof types.UnlinkIdentityDocument,
    "\n  mutation ChangePassword($input: ChangePasswordInput!) {\n    changePassword(input: $input) {\n      endedSessions\n    }\n  }\n": typeof types.ChangePasswordDocument,
    "\n  query MySessions {\n    mySessions {\n      id\n      current\n      ipAddress\n      userAgent\n      device\n      lastSeenAt\n    }\n  }\n": typeof types.MySessionsDocument,
    "\n  mutation RevokeSession($id: ID!) {\n    revokeSession(id: $id)\n  }\n": typeof types.RevokeSessionDocument,
    "\n  mutation RevokeOtherSessions {\n    revokeOtherSessions\n  }\n": typeof types.RevokeOtherSessionsDocument,
    "\n  mutation Logout {\n    logout\n  }\n": typeof types.LogoutDocument,
    "\n  query ApiKeys {\n    apiKeys {\n      id\n      name\n      keyPrefix\n      scopes\n      status\n      lastUsedAt\n    }\n  }\n": typeof types.ApiKeysDocument,
    "\n  query ApiKeyUsage($id: ID!) {\n    apiKey(id: $id) {\n      id\n      totalRequests\n      requestsLast24h\n      lastUsedAt\n    }\n  }\n": typeof types.ApiKeyUsageDocument,
    "\n  mutation CreateApiKey($input: CreateApiKeyInput!) {\n    createApiKey(input: $input) {\n      id\n      name\n      key\n    }\n  }\n": typeof types.CreateApiKeyDocument,
    "\n  mutation RevokeApiKey($id: ID!) {\n    revokeApiKey(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.RevokeApiKeyDocument,
    "\n  query CurrentSession {\n    me {\n      user {\n        id\n        email\n        role\n        firstName\n        lastName\n        image\n      }\n      activeTeamId\n      twoFactorEnabled\n    }\n  }\n": typeof types.CurrentSessionDocument,
    "\n  mutation AcceptTeamInvitation($token: String!) {\n    acceptTeamInvitation(token: $token) {\n      teamId\n    }\n  }\n": typeof types.AcceptTeamInvitationDocument,
    "\n  mutation DeclineTeamInvitation($token: String!) {\n    declineTeamInvitation(token: $token) {\n      status\n    }\n  }\n": typeof types.DeclineTeamInvitationDocument,
    "\n  mutation SignupWithInvite($input: SignupWithInviteInput!) {\n    signupWithInvite(input: $input) {\n      teamId\n    }\n  }\n": typeof types.SignupWithInviteDocument,
    "\n  mutation RequestPasswordReset($input: RequestPasswordResetInput!) {\n    requestPasswordReset(input: $input)\n  }\n": typeof types.RequestPasswordResetDocument,
    "\n  mutation ResetPassword($input: ResetPasswordInput!) {\n    resetPassword(input: $input)\n  }\n": typeof types.ResetPasswordDocument,
    "\n  mutation VerifyEmail($input: VerifyEmailInput!) {\n    verifyEmail(input: $input) {\n      activeTeamId\n    }\n  }\n": typeof types.VerifyEmailDocument,
    "\n  query MediaList($limit: Int, $offset: Int, $type: MediaTypeFilter, $search: String, $tagIds: [String!]) {\n    mediaList(limit: $limit, offset: $offset, type: $type, search: $search, tagIds: $tagIds) {\n      total\n      items {\n        id\n        filename\n        mimeType\n        fileSize\n        width\n        height\n        createdAt\n        url\n        title\n        alt\n        caption\n        renditions {\n          width\n          url\n        }\n      }\n    }\n  }\n": typeof types.MediaListDocument,
    "\n  query MediaTags {\n    mediaTags {\n      id\n      name\n    }\n  }\n": typeof types.MediaTagsDocument,
    "\n  query MediaTagIds($id: ID!) {\n    media(id: $id) {\n      id\n      tags {\n        id\n      }\n    }\n  }\n": typeof types.MediaTagIdsDocument,
    "\n  mutation UpdateMedia($id: ID!, $input: UpdateMediaInput!) {\n    updateMedia(id: $id, input: $input) {\n      id\n    }\n  }\n": typeof types.UpdateMediaDocument,
    "\n  mutation SetMediaTags($mediaId: ID!, $tagIds: [ID!]!) {\n    setMediaTags(mediaId: $mediaId, tagIds: $tagIds) {\n      id\n    }\n  }\n": typeof types.SetMediaTagsDocument,
    "\n  mutation DeleteMedia($id: ID!) {\n    deleteMedia(id: $id) {\n      id\n    }\n  }\n": typeof types.DeleteMediaDocument,
    "\n  mutation UploadMedia($files: [Upload!]!) {\n    uploadMedia(files: $files) {\n      media {\n        id\n        url\n        filename\n        mimeType\n      }\n      duplicates {\n        filename\n      }\n    }\n  }\n": typeof types.UploadMediaDocument,
    "\n  query ScheduledActions($status: String, $actionType: String, $page: Int, $limit: Int) {\n    scheduledActions(status: $status, actionType: $actionType, page: $page, limit: $limit) {\n      actions {\n        id\n        actionType\n        status\n        scheduledAt\n        attempts\n        maxRetries\n        recurringInterval\n        errorMessage\n        payload\n        result\n      }\n      pagination {\n        total\n        totalPages\n      }\n      meta {\n        registeredActionTypes\n      }\n    }\n  }\n": typeof types.ScheduledActionsDocument,
    "\n  mutation RetryScheduledAction($id: ID!) {\n    retryScheduledAction(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.RetryScheduledActionDocument,
    "\n  mutation CancelScheduledAction($id: ID!) {\n    cancelScheduledAction(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.CancelScheduledActionDocument,
    "\n  query SignInProviders {\n    signInProviders {\n      id\n      name\n      signInUrl\n    }\n  }\n": typeof types.SignInProvidersDocument,
    "\n  mutation Login($input: LoginInput!) {\n    login(input: $input) {\n      twoFactorRequired\n      challenge\n    }\n  }\n": typeof types.LoginDocument,
    "\n  mutation CompleteTwoFactorSignIn($input: TwoFactorSignInInput!) {\n    completeTwoFactorSignIn(input: $input) {\n      activeTeamId\n    }\n  }\n": typeof types.CompleteTwoFactorSignInDocument,
    "\n  mutation Signup($input: SignupInput!) {\n    signup(input: $input) {\n      emailVerificationRequired\n    }\n  }\n": typeof types.SignupDocument,
    "\n  mutation ResendVerificationEmail($input: ResendVerificationInput!) {\n    resendVerificationEmail(input: $input)\n  }\n": typeof types.ResendVerificationEmailDocument,
    "\n  query TeamPlan($teamId: ID!) {\n    teamSubscription(teamId: $teamId) {\n      plan {\n        name\n        limits {\n          slug\n        }\n      }\n    }\n  }\n": typeof types.TeamPlanDocument,
    "\n  query TeamUsage($teamId: ID!, $limitSlug: String!) {\n    teamUsage(teamId: $teamId, limitSlug: $limitSlug) {\n      limitSlug\n      current\n      max\n    }\n  }\n": typeof types.TeamUsageDocument,
    "\n  query TeamMembers($teamId: ID!) {\n    teamMembers(teamId: $teamId, limit: 100) {\n      items {\n        id\n        role\n        userId\n        user {\n          email\n          firstName\n          lastName\n        }\n      }\n    }\n  }\n": typeof types.TeamMembersDocument,
    "\n  query TeamPendingInvitations($teamId: ID!) {\n    teamPendingInvitations(teamId: $teamId) {\n      id\n      email\n      role\n      expiresAt\n      invitedByUser {\n        firstName\n        lastName\n      }\n    }\n  }\n": typeof types.TeamPendingInvitationsDocument,
    "\n  mutation CancelTeamInvitation($id: ID!) {\n    cancelTeamInvitation(id: $id)\n  }\n": typeof types.CancelTeamInvitationDocument,
    "\n  mutation ChangeTeamMemberRole($teamId: ID!, $memberId: ID!, $role: String!) {\n    changeTeamMemberRole(teamId: $teamId, memberId: $memberId, role: $role) {\n      id\n    }\n  }\n": typeof types.ChangeTeamMemberRoleDocument,
    "\n  mutation RemoveTeamMember($teamId: ID!, $memberId: ID!) {\n    removeTeamMember(teamId: $teamId, memberId: $memberId)\n  }\n": typeof types.RemoveTeamMemberDocument,
    "\n  mutation InviteTeamMember($teamId: ID!, $input: InviteTeamMemberInput!) {\n    inviteTeamMember(teamId: $teamId, input: $input) {\n      emailSent\n    }\n  }\n": typeof types.InviteTeamMemberDocument,
    "\n  query Teams {\n    teams(limit: 100) {\n      items {\n        id\n        name\n        slug\n        userRole\n        memberCount\n      }\n    }\n  }\n": typeof types.TeamsDocument,
    "\n  mutation SwitchTeam($teamId: ID!) {\n    switchTeam(teamId: $teamId) {\n      activeTeamId\n    }\n  }\n": typeof types.SwitchTeamDocument,
    "\n  mutation EnrollTwoFactor($input: EnrollTwoFactorInput!) {\n    enrollTwoFactor(input: $input) {\n      secret\n      otpauthUri\n    }\n  }\n": typeof types.EnrollTwoFactorDocument,
    "\n  mutation ConfirmTwoFactor($input: ConfirmTwoFactorInput!) {\n    confirmTwoFactor(input: $input) {\n      recoveryCodes\n    }\n  }\n": typeof types.ConfirmTwoFactorDocument,
    "\n  mutation DisableTwoFactor($input: TwoFactorCodeInput!) {\n    disableTwoFactor(input: $input)\n  }\n": typeof types.DisableTwoFactorDocument,
    "\n  query WebhookEndpoints($limit: Int) {\n    webhookEndpoints(limit: $limit) {\n      items {\n        id\n        url\n        description\n        eventTypes\n        active\n      }\n    }\n  }\n": typeof types.WebhookEndpointsDocument,
    "\n  query WebhookDeliveries($id: ID!, $limit: Int) {\n    webhookEndpoint(id: $id) {\n      id\n      deliveries(limit: $limit) {\n        items {\n          id\n          eventType\n          status\n          statusCode\n          error\n          attempt\n          createdAt\n        }\n      }\n    }\n  }\n": typeof types.WebhookDeliveriesDocument,
    "\n  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {\n    createWebhookEndpoint(input: $input) {\n      id\n      url\n      secret\n    }\n  }\n": typeof types.CreateWebhookEndpointDocument,
    "\n  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {\n    updateWebhookEndpoint(id: $id, input: $input) {\n      id\n      active\n    }\n  }\n": typeof types.UpdateWebhookEndpointDocument,
    "\n  mutation DeleteWebhookEndpoint($id: ID!) {\n    deleteWebhookEndpoint(id: $id) {\n      id\n    }\n  }\n": typeof types.DeleteWebhookEndpointDocument,
};
const documents: Documents = {
    "\n  query MyIdentities {\n    myIdentities {\n      id\n      provider\n      email\n    }\n  }\n": types.MyIdentitiesDocument,
    "\n  mutation UnlinkIdentity($id: ID!) {\n    unlinkIdentity(id: $id)\n  }\n": types.UnlinkIdentityDocument,
    "\n  mutation ChangePassword($input: ChangePasswordInput!) {\n    changePassword(input: $input) {\n      endedSessions\n    }\n  }\n": types.ChangePasswordDocument,
    "\n  query MySessions {\n    mySessions {\n      id\n      current\n      ipAddress\n      userAgent\n      device\n      lastSeenAt\n    }\n  }\n": types.MySessionsDocument,
    "\n  mutation RevokeSession($id: ID!) {\n    revokeSession(id: $id)\n  }\n": types.RevokeSessionDocument,
    "\n  mutation RevokeOtherSessions {\n    revokeOtherSessions\n  }\n": types.RevokeOtherSessionsDocument,
    "\n  mutation Logout {\n    logout\n  }\n": types.LogoutDocument,
    "\n  query ApiKeys {\n    apiKeys {\n      id\n      name\n      keyPrefix\n      scopes\n      status\n      lastUsedAt\n    }\n  }\n": types.ApiKeysDocument,
    "\n  query ApiKeyUsage($id: ID!) {\n    apiKey(id: $id) {\n      id\n      totalRequests\n      requestsLast24h\n      lastUsedAt\n    }\n  }\n": types.ApiKeyUsageDocument,
    "\n  mutation CreateApiKey($input: CreateApiKeyInput!) {\n    createApiKey(input: $input) {\n      id\n      name\n      key\n    }\n  }\n": types.CreateApiKeyDocument,
    "\n  mutation RevokeApiKey($id: ID!) {\n    revokeApiKey(id: $id) {\n      id\n      status\n    }\n  }\n": types.RevokeApiKeyDocument,
    "\n  query CurrentSession {\n    me {\n      user {\n        id\n        email\n        role\n        firstName\n        lastName\n        image\n      }\n      activeTeamId\n      twoFactorEnabled\n    }\n  }\n": types.CurrentSessionDocument,
    "\n  mutation AcceptTeamInvitation($token: String!) {\n    acceptTeamInvitation(token: $token) {\n      teamId\n    }\n  }\n": types.AcceptTeamInvitationDocument,
    "\n  mutation DeclineTeamInvitation($token: String!) {\n    declineTeamInvitation(token: $token) {\n      status\n    }\n  }\n": types.DeclineTeamInvitationDocument,
    "\n  mutation SignupWithInvite($input: SignupWithInviteInput!) {\n    signupWithInvite(input: $input) {\n      teamId\n    }\n  }\n": types.SignupWithInviteDocument,
    "\n  mutation RequestPasswordReset($input: RequestPasswordResetInput!) {\n    requestPasswordReset(input: $input)\n  }\n": types.RequestPasswordResetDocument,
    "\n  mutation ResetPassword($input: ResetPasswordInput!) {\n    resetPassword(input: $input)\n  }\n": types.ResetPasswordDocument,
    "\n  mutation VerifyEmail($input: VerifyEmailInput!) {\n    verifyEmail(input: $input) {\n      activeTeamId\n    }\n  }\n": types.VerifyEmailDocument,
    "\n  query MediaList($limit: Int, $offset: Int, $type: MediaTypeFilter, $search: String, $tagIds: [String!]) {\n    mediaList(limit: $limit, offset: $offset, type: $type, search: $search, tagIds: $tagIds) {\n      total\n      items {\n        id\n        filename\n        mimeType\n        fileSize\n        width\n        height\n        createdAt\n        url\n        title\n        alt\n        caption\n        renditions {\n          width\n          url\n        }\n      }\n    }\n  }\n": types.MediaListDocument,
    "\n  query MediaTags {\n    mediaTags {\n      id\n      name\n    }\n  }\n": types.MediaTagsDocument,
    "\n  query MediaTagIds($id: ID!) {\n    media(id: $id) {\n      id\n      tags {\n        id\n      }\n    }\n  }\n": types.MediaTagIdsDocument,
    "\n  mutation UpdateMedia($id: ID!, $input: UpdateMediaInput!) {\n    updateMedia(id: $id, input: $input) {\n      id\n    }\n  }\n": types.UpdateMediaDocument,
    "\n  mutation SetMediaTags($mediaId: ID!, $tagIds: [ID!]!) {\n    setMediaTags(mediaId: $mediaId, tagIds: $tagIds) {\n      id\n    }\n  }\n": types.SetMediaTagsDocument,
    "\n  mutation DeleteMedia($id: ID!) {\n    deleteMedia(id: $id) {\n      id\n    }\n  }\n": types.DeleteMediaDocument,
    "\n  mutation UploadMedia($files: [Upload!]!) {\n    uploadMedia(files: $files) {\n      media {\n        id\n        url\n        filename\n        mimeType\n      }\n      duplicates {\n        filename\n      }\n    }\n  }\n": types.UploadMediaDocument,
    "\n  query ScheduledActions($status: String, $actionType: String, $page: Int, $limit: Int) {\n    scheduledActions(status: $status, actionType: $actionType, page: $page, limit: $limit) {\n      actions {\n        id\n        actionType\n        status\n        scheduledAt\n        attempts\n        maxRetries\n        recurringInterval\n        errorMessage\n        payload\n        result\n      }\n      pagination {\n        total\n        totalPages\n      }\n      meta {\n        registeredActionTypes\n      }\n    }\n  }\n": types.ScheduledActionsDocument,
    "\n  mutation RetryScheduledAction($id: ID!) {\n    retryScheduledAction(id: $id) {\n      id\n      status\n    }\n  }\n": types.RetryScheduledActionDocument,
    "\n  mutation CancelScheduledAction($id: ID!) {\n    cancelScheduledAction(id: $id) {\n      id\n      status\n    }\n  }\n": types.CancelScheduledActionDocument,
    "\n  query SignInProviders {\n    signInProviders {\n      id\n      name\n      signInUrl\n    }\n  }\n": types.SignInProvidersDocument,
    "\n  mutation Login($input: LoginInput!) {\n    login(input: $input) {\n      twoFactorRequired\n      challenge\n    }\n  }\n": types.LoginDocument,
    "\n  mutation CompleteTwoFactorSignIn($input: TwoFactorSignInInput!) {\n    completeTwoFactorSignIn(input: $input) {\n      activeTeamId\n    }\n  }\n": types.CompleteTwoFactorSignInDocument,
    "\n  mutation Signup($input: SignupInput!) {\n    signup(input: $input) {\n      emailVerificationRequired\n    }\n  }\n": types.SignupDocument,
    "\n  mutation ResendVerificationEmail($input: ResendVerificationInput!) {\n    resendVerificationEmail(input: $input)\n  }\n": types.ResendVerificationEmailDocument,
    "\n  query TeamPlan($teamId: ID!) {\n    teamSubscription(teamId: $teamId) {\n      plan {\n        name\n        limits {\n          slug\n        }\n      }\n    }\n  }\n": types.TeamPlanDocument,
    "\n  query TeamUsage($teamId: ID!, $limitSlug: String!) {\n    teamUsage(teamId: $teamId, limitSlug: $limitSlug) {\n      limitSlug\n      current\n      max\n    }\n  }\n": types.TeamUsageDocument,
    "\n  query TeamMembers($teamId: ID!) {\n    teamMembers(teamId: $teamId, limit: 100) {\n      items {\n        id\n        role\n        userId\n        user {\n          email\n          firstName\n          lastName\n        }\n      }\n    }\n  }\n": types.TeamMembersDocument,
    "\n  query TeamPendingInvitations($teamId: ID!) {\n    teamPendingInvitations(teamId: $teamId) {\n      id\n      email\n      role\n      expiresAt\n      invitedByUser {\n        firstName\n        lastName\n      }\n    }\n  }\n": types.TeamPendingInvitationsDocument,
    "\n  mutation CancelTeamInvitation($id: ID!) {\n    cancelTeamInvitation(id: $id)\n  }\n": types.CancelTeamInvitationDocument,
    "\n  mutation ChangeTeamMemberRole($teamId: ID!, $memberId: ID!, $role: String!) {\n    changeTeamMemberRole(teamId: $teamId, memberId: $memberId, role: $role) {\n      id\n    }\n  }\n": types.ChangeTeamMemberRoleDocument,
    "\n  mutation RemoveTeamMember($teamId: ID!, $memberId: ID!) {\n    removeTeamMember(teamId: $teamId, memberId: $memberId)\n  }\n": types.RemoveTeamMemberDocument,
    "\n  mutation InviteTeamMember($teamId: ID!, $input: InviteTeamMemberInput!) {\n    inviteTeamMember(teamId: $teamId, input: $input) {\n      emailSent\n    }\n  }\n": types.InviteTeamMemberDocument,
    "\n  query Teams {\n    teams(limit: 100) {\n      items {\n        id\n        name\n        slug\n        userRole\n        memberCount\n      }\n    }\n  }\n": types.TeamsDocument,
    "\n  mutation SwitchTeam($teamId: ID!) {\n    switchTeam(teamId: $teamId) {\n      activeTeamId\n    }\n  }\n": types.SwitchTeamDocument,
    "\n  mutation EnrollTwoFactor($input: EnrollTwoFactorInput!) {\n    enrollTwoFactor(input: $input) {\n      secret\n      otpauthUri\n    }\n  }\n": types.EnrollTwoFactorDocument,
    "\n  mutation ConfirmTwoFactor($input: ConfirmTwoFactorInput!) {\n    confirmTwoFactor(input: $input) {\n      recoveryCodes\n    }\n  }\n": types.ConfirmTwoFactorDocument,
    "\n  mutation DisableTwoFactor($input: TwoFactorCodeInput!) {\n    disableTwoFactor(input: $input)\n  }\n": types.DisableTwoFactorDocument,
    "\n  query WebhookEndpoints($limit: Int) {\n    webhookEndpoints(limit: $limit) {\n      items {\n        id\n        url\n        description\n        eventTypes\n        active\n      }\n    }\n  }\n": types.WebhookEndpointsDocument,
    "\n  query WebhookDeliveries($id: ID!, $limit: Int) {\n    webhookEndpoint(id: $id) {\n      id\n      deliveries(limit: $limit) {\n        items {\n          id\n          eventType\n          status\n          statusCode\n          error\n          attempt\n          createdAt\n        }\n      }\n    }\n  }\n": types.WebhookDeliveriesDocument,
    "\n  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {\n    createWebhookEndpoint(input: $input) {\n      id\n      url\n      secret\n    }\n  }\n": types.CreateWebhookEndpointDocument,
    "\n  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {\n    updateWebhookEndpoint(id: $id, input: $input) {\n      id\n      active\n    }\n  }\n": types.UpdateWebhookEndpointDocument,
    "\n  mutation DeleteWebhookEndpoint($id: ID!) {\n    deleteWebhookEndpoint(id: $id) {\n      id\n    }\n  }\n": types.DeleteWebhookEndpointDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyIdentities {\n    myIdentities {\n      id\n      provider\n      email\n    }\n  }\n"): typeof import('./graphql.js').MyIdentitiesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UnlinkIdentity($id: ID!) {\n    unlinkIdentity(id: $id)\n  }\n"): typeof import('./graphql.js').UnlinkIdentityDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ChangePassword($input: ChangePasswordInput!) {\n    changePassword(input: $input) {\n      endedSessions\n    }\n  }\n"): typeof import('./graphql.js').ChangePasswordDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MySessions {\n    mySessions {\n      id\n      current\n      ipAddress\n      userAgent\n      device\n      lastSeenAt\n    }\n  }\n"): typeof import('./graphql.js').MySessionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeSession($id: ID!) {\n    revokeSession(id: $id)\n  }\n"): typeof import('./graphql.js').RevokeSessionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeOtherSessions {\n    revokeOtherSessions\n  }\n"): typeof import('./graphql.js').RevokeOtherSessionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Logout {\n    logout\n  }\n"): typeof import('./graphql.js').LogoutDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApiKeys {\n    apiKeys {\n      id\n      name\n      keyPrefix\n      scopes\n      status\n      lastUsedAt\n    }\n  }\n"): typeof import('./graphql.js').ApiKeysDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApiKeyUsage($id: ID!) {\n    apiKey(id: $id) {\n      id\n      totalRequests\n      requestsLast24h\n      lastUsedAt\n    }\n  }\n"): typeof import('./graphql.js').ApiKeyUsageDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateApiKey($input: CreateApiKeyInput!) {\n    createApiKey(input: $input) {\n      id\n      name\n      key\n    }\n  }\n"): typeof import('./graphql.js').CreateApiKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeApiKey($id: ID!) {\n    revokeApiKey(id: $id) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql.js').RevokeApiKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CurrentSession {\n    me {\n      user {\n        id\n        email\n        role\n        firstName\n        lastName\n        image\n      }\n      activeTeamId\n      twoFactorEnabled\n    }\n  }\n"): typeof import('./graphql.js').CurrentSessionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AcceptTeamInvitation($token: String!) {\n    acceptTeamInvitation(token: $token) {\n      teamId\n    }\n  }\n"): typeof import('./graphql.js').AcceptTeamInvitationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeclineTeamInvitation($token: String!) {\n    declineTeamInvitation(token: $token) {\n      status\n    }\n  }\n"): typeof import('./graphql.js').DeclineTeamInvitationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SignupWithInvite($input: SignupWithInviteInput!) {\n    signupWithInvite(input: $input) {\n      teamId\n    }\n  }\n"): typeof import('./graphql.js').SignupWithInviteDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RequestPasswordReset($input: RequestPasswordResetInput!) {\n    requestPasswordReset(input: $input)\n  }\n"): typeof import('./graphql.js').RequestPasswordResetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResetPassword($input: ResetPasswordInput!) {\n    resetPassword(input: $input)\n  }\n"): typeof import('./graphql.js').ResetPasswordDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation VerifyEmail($input: VerifyEmailInput!) {\n    verifyEmail(input: $input) {\n      activeTeamId\n    }\n  }\n"): typeof import('./graphql.js').VerifyEmailDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MediaList($limit: Int, $offset: Int, $type: MediaTypeFilter, $search: String, $tagIds: [String!]) {\n    mediaList(limit: $limit, offset: $offset, type: $type, search: $search, tagIds: $tagIds) {\n      total\n      items {\n        id\n        filename\n        mimeType\n        fileSize\n        width\n        height\n        createdAt\n        url\n        title\n        alt\n        caption\n        renditions {\n          width\n          url\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').MediaListDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MediaTags {\n    mediaTags {\n      id\n      name\n    }\n  }\n"): typeof import('./graphql.js').MediaTagsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MediaTagIds($id: ID!) {\n    media(id: $id) {\n      id\n      tags {\n        id\n      }\n    }\n  }\n"): typeof import('./graphql.js').MediaTagIdsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateMedia($id: ID!, $input: UpdateMediaInput!) {\n    updateMedia(id: $id, input: $input) {\n      id\n    }\n  }\n"): typeof import('./graphql.js').UpdateMediaDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetMediaTags($mediaId: ID!, $tagIds: [ID!]!) {\n    setMediaTags(mediaId: $mediaId, tagIds: $tagIds) {\n      id\n    }\n  }\n"): typeof import('./graphql.js').SetMediaTagsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteMedia($id: ID!) {\n    deleteMedia(id: $id) {\n      id\n    }\n  }\n"): typeof import('./graphql.js').DeleteMediaDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UploadMedia($files: [Upload!]!) {\n    uploadMedia(files: $files) {\n      media {\n        id\n        url\n        filename\n        mimeType\n      }\n      duplicates {\n        filename\n      }\n    }\n  }\n"): typeof import('./graphql.js').UploadMediaDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ScheduledActions($status: String, $actionType: String, $page: Int, $limit: Int) {\n    scheduledActions(status: $status, actionType: $actionType, page: $page, limit: $limit) {\n      actions {\n        id\n        actionType\n        status\n        scheduledAt\n        attempts\n        maxRetries\n        recurringInterval\n        errorMessage\n        payload\n        result\n      }\n      pagination {\n        total\n        totalPages\n      }\n      meta {\n        registeredActionTypes\n      }\n    }\n  }\n"): typeof import('./graphql.js').ScheduledActionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RetryScheduledAction($id: ID!) {\n    retryScheduledAction(id: $id) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql.js').RetryScheduledActionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelScheduledAction($id: ID!) {\n    cancelScheduledAction(id: $id) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql.js').CancelScheduledActionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SignInProviders {\n    signInProviders {\n      id\n      name\n      signInUrl\n    }\n  }\n"): typeof import('./graphql.js').SignInProvidersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Login($input: LoginInput!) {\n    login(input: $input) {\n      twoFactorRequired\n      challenge\n    }\n  }\n"): typeof import('./graphql.js').LoginDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CompleteTwoFactorSignIn($input: TwoFactorSignInInput!) {\n    completeTwoFactorSignIn(input: $input) {\n      activeTeamId\n    }\n  }\n"): typeof import('./graphql.js').CompleteTwoFactorSignInDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Signup($input: SignupInput!) {\n    signup(input: $input) {\n      emailVerificationRequired\n    }\n  }\n"): typeof import('./graphql.js').SignupDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ResendVerificationEmail($input: ResendVerificationInput!) {\n    resendVerificationEmail(input: $input)\n  }\n"): typeof import('./graphql.js').ResendVerificationEmailDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamPlan($teamId: ID!) {\n    teamSubscription(teamId: $teamId) {\n      plan {\n        name\n        limits {\n          slug\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').TeamPlanDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamUsage($teamId: ID!, $limitSlug: String!) {\n    teamUsage(teamId: $teamId, limitSlug: $limitSlug) {\n      limitSlug\n      current\n      max\n    }\n  }\n"): typeof import('./graphql.js').TeamUsageDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamMembers($teamId: ID!) {\n    teamMembers(teamId: $teamId, limit: 100) {\n      items {\n        id\n        role\n        userId\n        user {\n          email\n          firstName\n          lastName\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').TeamMembersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamPendingInvitations($teamId: ID!) {\n    teamPendingInvitations(teamId: $teamId) {\n      id\n      email\n      role\n      expiresAt\n      invitedByUser {\n        firstName\n        lastName\n      }\n    }\n  }\n"): typeof import('./graphql.js').TeamPendingInvitationsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelTeamInvitation($id: ID!) {\n    cancelTeamInvitation(id: $id)\n  }\n"): typeof import('./graphql.js').CancelTeamInvitationDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ChangeTeamMemberRole($teamId: ID!, $memberId: ID!, $role: String!) {\n    changeTeamMemberRole(teamId: $teamId, memberId: $memberId, role: $role) {\n      id\n    }\n  }\n"): typeof import('./graphql.js').ChangeTeamMemberRoleDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveTeamMember($teamId: ID!, $memberId: ID!) {\n    removeTeamMember(teamId: $teamId, memberId: $memberId)\n  }\n"): typeof import('./graphql.js').RemoveTeamMemberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation InviteTeamMember($teamId: ID!, $input: InviteTeamMemberInput!) {\n    inviteTeamMember(teamId: $teamId, input: $input) {\n      emailSent\n    }\n  }\n"): typeof import('./graphql.js').InviteTeamMemberDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Teams {\n    teams(limit: 100) {\n      items {\n        id\n        name\n        slug\n        userRole\n        memberCount\n      }\n    }\n  }\n"): typeof import('./graphql.js').TeamsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SwitchTeam($teamId: ID!) {\n    switchTeam(teamId: $teamId) {\n      activeTeamId\n    }\n  }\n"): typeof import('./graphql.js').SwitchTeamDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation EnrollTwoFactor($input: EnrollTwoFactorInput!) {\n    enrollTwoFactor(input: $input) {\n      secret\n      otpauthUri\n    }\n  }\n"): typeof import('./graphql.js').EnrollTwoFactorDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConfirmTwoFactor($input: ConfirmTwoFactorInput!) {\n    confirmTwoFactor(input: $input) {\n      recoveryCodes\n    }\n  }\n"): typeof import('./graphql.js').ConfirmTwoFactorDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DisableTwoFactor($input: TwoFactorCodeInput!) {\n    disableTwoFactor(input: $input)\n  }\n"): typeof import('./graphql.js').DisableTwoFactorDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookEndpoints($limit: Int) {\n    webhookEndpoints(limit: $limit) {\n      items {\n        id\n        url\n        description\n        eventTypes\n        active\n      }\n    }\n  }\n"): typeof import('./graphql.js').WebhookEndpointsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookDeliveries($id: ID!, $limit: Int) {\n    webhookEndpoint(id: $id) {\n      id\n      deliveries(limit: $limit) {\n        items {\n          id\n          eventType\n          status\n          statusCode\n          error\n          attempt\n          createdAt\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.js').WebhookDeliveriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {\n    createWebhookEndpoint(input: $input) {\n      id\n      url\n      secret\n    }\n  }\n"): typeof import('./graphql.js').CreateWebhookEndpointDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {\n    updateWebhookEndpoint(id: $id, input: $input) {\n      id\n      active\n    }\n  }\n"): typeof import('./graphql.js').UpdateWebhookEndpointDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteWebhookEndpoint($id: ID!) {\n    deleteWebhookEndpoint(id: $id) {\n      id\n    }\n  }\n"): typeof import('./graphql.js').DeleteWebhookEndpointDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
