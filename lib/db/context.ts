import type { Clock } from '../core/clock.js';
import type { OrganizationItem, Role, CredentialKind } from './entities/index.js';

/** What a credential allows beyond the holder's own permissions (docs/agents.md). */
export interface CredentialRestrictions {
  kind: CredentialKind;
  /** Session id (SESSION) or token id (PERSONAL / AGENT). */
  credentialId: string;
  lookupKey: string;
  /** Empty: every board the holder may see. */
  allowedBoardIds: string[];
  readOnly: boolean;
  denyDelete: boolean;
  clientLabel: string | null;
  /** OAUTH: the token's scopes (docs/oauth.md); null for every other credential. */
  scopes: string[] | null;
  /** OAUTH: the client the token was issued to. */
  clientId?: string;
}

export interface Actor {
  userId: string;
  name: string;
  email: string;
  role: Role;
  isAgent: boolean;
  isAdmin: boolean;
  customerId: string | null;
  permissions: ReadonlySet<string>;
  teamIds: ReadonlySet<string>;
  credential: CredentialRestrictions;
  /**
   * Set for agents: their owner, concurrent-claim maximum, time factor (null: the
   * organization's) and weekly hours cap (null: none).
   */
  agent: { ownerId: string | null; maxConcurrentClaims: number | null; timeFactor: number | null; weeklyHoursCap: number | null; dispatchPaused: boolean; monthlyBudgetMicros: number | null } | null;
}

/** The explicit context every domain function receives: no Lambda, no HTTP. */
export interface DomainContext {
  org: OrganizationItem;
  actor: Actor;
  clock: Clock;
  requestId: string;
  /**
   * The claim the caller works under (its `claimCount`, the fencing number), when it names one
   * (REST `X-Claim-Count`, an MCP tool's `claimCount`): every ticket write is then refused with
   * CLAIM_SUPERSEDED unless that is the ticket's live claim of the caller (tickets/record/lease.ts).
   */
  claimFence?: number;
}

/** Context of unauthenticated operations (signup, login) that still know their organization or none. */
export interface AnonymousContext {
  clock: Clock;
  requestId: string;
  /** On a route where a credential is optional (`optionalCredential`), the caller who sent one. */
  caller?: DomainContext;
}

/**
 * Who wrote a change, as timeline entries and webhook events name it (docs/fleet-control.md,
 * "Every write attributed"): the actor, whether it is an agent and whose, the client it came
 * through (the token's `clientLabel`, or the MCP client's handshake name), and the lease it
 * wrote under (`claimCount`, when the write was fenced).
 */
export function attributionOf(ctx: Pick<DomainContext, 'actor' | 'claimFence'>) {
  return {
    actor: {
      id: ctx.actor.userId,
      name: ctx.actor.name,
      isAgent: ctx.actor.isAgent,
      ownerId: ctx.actor.agent?.ownerId ?? null,
      client: ctx.actor.credential.clientLabel,
    },
    ...(ctx.claimFence !== undefined ? { claimCount: ctx.claimFence } : {}),
  };
}
