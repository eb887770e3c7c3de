import type { TicketItem } from '../db/entities/index.js';

/** What a directive and a note for a lease's holder are, as stored on the ticket and as shown (lib/tickets/claims/directives.ts writes them). */

export const DIRECTIVE_ACTIONS = ['stop', 'pause', 'resume'] as const;
export type DirectiveAction = (typeof DIRECTIVE_ACTIONS)[number];

/** How long a stopped holder has to release before its lease ends on its own (seconds). */
export const STOP_GRACE_SECONDS = 120;
/** Notes waiting for the holder's next heartbeat, at most. */
export const MAX_PENDING_MESSAGES = 20;
export const MESSAGE_LIMIT = 1_000;

/** A directive as stored on the ticket (`claimDirective`). */
export interface StoredDirective {
  action: DirectiveAction;
  message: string | null;
  requestedById: string;
  requestedByName: string;
  requestedAt: string;
  stopDeadline?: string;
}

/** A note as stored on the ticket (`claimMessages`) until a heartbeat delivers it. */
export interface StoredMessage {
  id: string;
  text: string;
  fromId: string;
  fromName: string;
  sentAt: string;
}

export const directiveOf = (ticket: TicketItem): StoredDirective | undefined => ticket.claimDirective as StoredDirective | undefined;
export const pendingMessagesOf = (ticket: TicketItem): StoredMessage[] => (ticket.claimMessages as StoredMessage[] | undefined) ?? [];

export function presentDirective(directive: StoredDirective | undefined) {
  if (!directive) return null;
  return {
    action: directive.action,
    message: directive.message,
    requestedBy: { id: directive.requestedById, name: directive.requestedByName },
    requestedAt: directive.requestedAt,
    stopDeadline: directive.stopDeadline ?? null,
  };
}

export const presentMessage = (message: StoredMessage) => ({ id: message.id, text: message.text, from: { id: message.fromId, name: message.fromName }, sentAt: message.sentAt });

