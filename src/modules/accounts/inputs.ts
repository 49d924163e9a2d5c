// Account inputs, validated at both edges with the same schemas.
import { z } from 'zod';
import { emailAddress as email } from '../../shared/validation.js';

/** A password as accounts are given one: at signup, by a reset link, by a change. */
const newPassword = z.string().min(8, 'must be at least 8 characters').max(256);

export const signupInput = z.strictObject({
  email,
  password: newPassword,
  firstName: z.string().trim().min(1).max(100),
  lastName: z.string().trim().min(1).max(100),
});
export type SignupInput = z.output<typeof signupInput>;

export const loginInput = z.strictObject({
  email,
  password: z.string().min(1).max(256),
});
export type LoginInput = z.output<typeof loginInput>;

/** Signup by invitation: the invited e-mail and the invitation's token. */
export const signupWithInviteInput = signupInput.extend({ inviteToken: z.string().trim().min(1).max(100) });
export type SignupWithInviteInput = z.output<typeof signupWithInviteInput>;

export const requestPasswordResetInput = z.strictObject({ email });
export type RequestPasswordResetInput = z.output<typeof requestPasswordResetInput>;

export const passwordResetInput = z.strictObject({ token: z.string().trim().min(1).max(100), password: newPassword });
export type PasswordResetInput = z.output<typeof passwordResetInput>;

export const verifyEmailInput = z.strictObject({ token: z.string().trim().min(1).max(100) });
export type VerifyEmailInput = z.output<typeof verifyEmailInput>;

export const resendVerificationInput = z.strictObject({ email });
export type ResendVerificationInput = z.output<typeof resendVerificationInput>;

/** A TOTP code (6 digits) or a recovery code (XXXX-XXXX-XXXX-XXXX, any case, dashes optional). */
const secondFactor = z.string().trim().min(6).max(40);

export const enrollTwoFactorInput = z.strictObject({ password: z.string().min(1).max(256) });
export type EnrollTwoFactorInput = z.output<typeof enrollTwoFactorInput>;

export const confirmTwoFactorInput = z.strictObject({ code: z.string().trim().regex(/^\d{6}$/, 'must be the 6 digits of the authenticator app') });
export type ConfirmTwoFactorInput = z.output<typeof confirmTwoFactorInput>;

export const twoFactorCodeInput = z.strictObject({ code: secondFactor });
export type TwoFactorCodeInput = z.output<typeof twoFactorCodeInput>;

export const twoFactorSignInInput = z.strictObject({ challenge: z.string().trim().min(1).max(100), code: secondFactor });
export type TwoFactorSignInInput = z.output<typeof twoFactorSignInInput>;

export const changePasswordInput = z.strictObject({ currentPassword: z.string().min(1).max(256), newPassword });
export type ChangePasswordInput = z.output<typeof changePasswordInput>;

export const userRole = z.enum(['member', 'developer', 'superadmin']);

/** What an operator gives the CLI to create an account. */
export const createUserInput = signupInput.extend({
  role: userRole.default('member'),
  firstName: z.string().trim().max(100).default(''),
  lastName: z.string().trim().max(100).default(''),
});
export type CreateUserInput = z.output<typeof createUserInput>;

/** What an operator gives the CLI to set a user's password. */
export const setPasswordInput = z.strictObject({ email, password: newPassword });
