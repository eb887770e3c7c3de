import { forbidden } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';

/**
 * Credential management needs an interactive session: a token must never mint a token
 * that escapes its own restrictions (spec §5.2 says the same of agent tokens).
 */
export function requireSession(ctx: DomainContext): void {
  if (ctx.actor.credential.kind !== 'SESSION') {
    throw forbidden('This endpoint needs a signed-in session, not an access token');
  }
}
