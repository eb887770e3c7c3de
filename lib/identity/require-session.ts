import { forbidden } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';

/**
 * The console's OAuth `client_id` (docs/console.md): the service's own page on the
 * organization's origin, whose grant is made by signing in with the password there and whose
 * tokens live only in that page's memory. Its tokens count as a signed-in session.
 */
export const CONSOLE_CLIENT_ID = 'console';

/**
 * Credential management needs an interactive session: a token must never mint a token
 * that escapes its own restrictions (docs/agents.md says the same of agent tokens). The console's
 * OAuth tokens are a person's interactive sign-in, so they count as one.
 */
export function requireSession(ctx: DomainContext): void {
  const { credential } = ctx.actor;
  const interactive = credential.kind === 'SESSION' || (credential.kind === 'OAUTH' && credential.clientId === CONSOLE_CLIENT_ID);
  if (!interactive) throw forbidden('This endpoint needs a signed-in session, not an access token');
}
