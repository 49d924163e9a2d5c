// Domain errors: services throw these with a stable code; the GraphQL edge turns them into
// GraphQLErrors (extensions.code / http.status / details) and the REST edge into the envelope.

/** Every error code the platform answers with, and its HTTP status. One table, both interfaces. */
export const statusByCode = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  AUTHENTICATION_FAILED: 401,
  FORBIDDEN: 403,
  CSRF_REJECTED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  EMAIL_EXISTS: 409,
  SLUG_EXISTS: 409,
  CONFLICT: 409,
  ALREADY_MEMBER: 400,
  INVITATION_EXISTS: 400,
  INVITATION_EXPIRED: 400,
  INVITATION_NOT_FOUND: 404,
  /** A single-use link's token (password reset) that is unknown, used or expired. */
  INVALID_TOKEN: 400,
  /** The signed-in user's current password, asked again for a sensitive change, is wrong. */
  INVALID_CREDENTIALS: 400,
  /** A second-factor code (TOTP or recovery code) that is wrong or already used. */
  INVALID_CODE: 400,
  /** A provider sign-in's callback without its flow (the browser's flow cookie and state): missing, expired, used or tampered. */
  SIGN_IN_FLOW_INVALID: 400,
  /** A provider sign-in that did not give a usable identity: refused at the provider, failed there, or no e-mail. */
  SIGN_IN_FAILED: 400,
  /** Sign-in with the right password to an account whose e-mail is not verified yet (REQUIRE_EMAIL_VERIFICATION). */
  EMAIL_NOT_VERIFIED: 403,
  /** Sign-in (with the right password, a provider or a second factor) to an account an operator disabled (CLI `user disable`). */
  ACCOUNT_DISABLED: 403,
  TEAM_CREATION_DISABLED: 403,
  PUBLIC_SIGNUP_RESTRICTED: 403,
  INVITATIONS_DISABLED: 403,
  PLAN_LIMIT_REACHED: 403,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  /** The database (or another dependency) cannot be reached now: retry after Retry-After seconds. */
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof statusByCode;

/** An expected failure with a machine code, a human message and optional details for the client. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return statusByCode[this.code];
  }

  /** Headers its answer carries: a 429's wait (details.retryAfter, seconds) as Retry-After. */
  get headers(): Record<string, string> | undefined {
    return this.code === 'RATE_LIMITED' && typeof this.details?.retryAfter === 'number' ? { 'retry-after': String(this.details.retryAfter) } : undefined;
  }
}

/** The answer to a caller who is not authenticated. */
export const unauthenticated = () => new AppError('AUTHENTICATION_FAILED', 'Unauthorized');

/** The answer to a caller who is authenticated but may not do this. */
export const forbidden = (message = 'Forbidden') => new AppError('FORBIDDEN', message);
