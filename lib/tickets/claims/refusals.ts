import { AppError, type ErrorCode } from '../../core/errors.js';

/**
 * The refusals of a claim that code acts on, each its own class, so it is told apart by type and
 * never by its code (docs/design/errors.md). Claim-next moves on to its next candidate after a
 * ClaimRefused, and counts AlreadyClaimed as contention; the slot counter retries after a
 * ClaimLimitReached while the agent's live claims leave room.
 */

/** This caller may not claim this ticket now: someone holds it, it is final or quarantined, or dispatch is paused over it. */
export class ClaimRefused extends AppError {
  constructor(code: Extract<ErrorCode, 'TICKET_ALREADY_CLAIMED' | 'TICKET_NOT_CLAIMABLE' | 'TICKET_QUARANTINED' | 'DISPATCH_PAUSED'>, message: string, details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = 'ClaimRefused';
  }
}

/** 409 TICKET_ALREADY_CLAIMED: another actor holds a live claim. */
export class AlreadyClaimed extends ClaimRefused {
  constructor(holder: { id: string | undefined; name: string }, claimExpiresAt: string | undefined) {
    super('TICKET_ALREADY_CLAIMED', 'Another actor holds a live claim on this ticket', { claimedBy: holder, claimExpiresAt });
    this.name = 'AlreadyClaimed';
  }
}

/** 403 CLAIM_LIMIT_REACHED: the agent holds its maximum of concurrent claims (naming them, when known). */
export class ClaimLimitReached extends AppError {
  constructor(max: number, heldTicketIds?: string[]) {
    super('CLAIM_LIMIT_REACHED', `The agent already holds its maximum of ${max} concurrent claims`, { maxConcurrentClaims: max, ...(heldTicketIds ? { heldTicketIds } : {}) });
    this.name = 'ClaimLimitReached';
  }
}
