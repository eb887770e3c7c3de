/** Public face of identity (sign-in, sessions and tokens) for other domains: they reach it only through this file. */
export { authenticate } from './authenticate.js';
export { endSession, login } from './login.js';
export { issueSession } from './session-issuer.js';
export { ACCESS_TOKEN_TYP, resourceOf } from './oauth-access-tokens.js';
export { type TokenRestrictionsInput, createAccessToken, createPersonalToken, listAccessTokens, listPersonalTokens, presentToken, revokeAccessToken, revokePersonalToken } from './personal-tokens.js';
export { CONSOLE_CLIENT_ID, requireSession } from './require-session.js';
export { acceptInvitation, createInvitation, listInvitations, revokeInvitation } from './invitations.js';
export { confirmPasswordReset, requestPasswordReset } from './password-reset.js';
