import { addressedSlugOf } from '../http/organization-slug.js';
import * as z from 'zod';
import { authenticated, EDGE_THROTTLES, open, originOf, type Routes, onFirstUse } from '../http/routes.js';
import { requiredText, emailAddress } from '../http/validation.js';
import { isPlatformOperator } from '../http/access.js';
import { signup } from './signup.js';
import { changePassword, login, logout } from './login.js';
import { confirmPasswordReset, requestPasswordReset } from './password-reset.js';
import { organizationBrief, userResult } from '../users/index.js';

/** A new session: the bearer token and how long it lives. */
const session = {
  token: z.string().meta({ description: 'Session token (a JWT); send it as `Authorization: Bearer …`' }),
  expiresIn: z.number().int().meta({ description: 'Seconds until the session expires' }),
};

const email = emailAddress;
const password = z.string().min(8, 'At least 8 characters').max(256, 'At most 256 characters');
const slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$/, '3-40 lower-case letters, digits or hyphens, not starting or ending with a hyphen');

/** Routes of the `auth` group (README.md, First five minutes). */
export const authRoutes: Routes = {
  'POST /api/v1/auth/signup': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.signUp,
      summary: 'Sign up: create an organization and its administrator',
      description:
        'Open to anyone unless the installation turns sign-up off (`SIGNUP_ENABLED=false`, context `signupEnabled=false`); then only the platform operator may create organizations, by sending its token as `Authorization: Bearer <token>` (403 `FORBIDDEN` for everyone else). The new administrator is signed in either way.',
      status: 201,
      result: z.strictObject({ organization: organizationBrief, user: userResult, ...session }).meta({ id: 'SignupResult' }),
      errors: ['CONFLICT', 'FORBIDDEN'],
      body: z.strictObject({ organizationName: requiredText(100), slug, name: requiredText(100), email, password }),
      handler: (ctx, { body, request }) => signup(ctx, body, { byPlatformOperator: isPlatformOperator(request.headers) }),
    }),
  ),
  'POST /api/v1/auth/login': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.signIn,
      summary: 'Sign in with e-mail and password',
      result: z.strictObject({ ...session, user: userResult }).meta({ id: 'Session' }),
      errors: ['INVALID_CREDENTIALS', 'NOT_FOUND', 'RATE_LIMITED'],
      body: z.strictObject({ email, password: z.string().min(1).max(256) }),
      handler: (ctx, { body, request }) => login(ctx, addressedSlugOf(request.headers), body, request.sourceIp),
    }),
  ),
  'POST /api/v1/auth/logout': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Sign out (ends this session)',
      status: 204,
      handler: (ctx) => logout(ctx),
    }),
  ),
  'POST /api/v1/auth/password': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Change your password (ends your other sessions)',
      result: z.strictObject(session),
      errors: ['CONFLICT'],
      body: z.strictObject({ currentPassword: z.string().min(1).max(256), newPassword: password }),
      handler: (ctx, { body }) => changePassword(ctx, body),
    }),
  ),
  'POST /api/v1/auth/password-reset': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.signIn,
      summary: 'Forgot password: mail a reset link',
      description:
        'When the address belongs to an active person of the organization the request addresses, a link to set a new password is mailed to it (it works once, for 60 minutes). The answer is 204 for any address, known or not, and takes about the same time either way. At most 5 requests per address an hour and 50 per source address in 15 minutes (429).',
      status: 204,
      errors: ['NOT_FOUND', 'RATE_LIMITED'],
      body: z.strictObject({ email }),
      handler: (ctx, { body, request }) => requestPasswordReset(ctx, addressedSlugOf(request.headers), body.email, { requestOrigin: originOf(request), sourceIp: request.sourceIp }),
    }),
  ),
  'POST /api/v1/auth/password-reset/confirm': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.signIn,
      summary: 'Set a new password from a reset link',
      description:
        "`token` is the link's `token` parameter. The link works once and for 60 minutes, and not after the password changed since it was mailed. Setting the password ends every session and revokes every OAuth grant of the person; they sign in again with the new one. A link that is not valid any more answers 400 `VALIDATION_ERROR` on `token`.",
      status: 204,
      body: z.strictObject({ token: z.string().min(1).max(200), password }),
      handler: (ctx, { body, request }) => confirmPasswordReset(ctx, addressedSlugOf(request.headers), body),
    }),
  ),
};
