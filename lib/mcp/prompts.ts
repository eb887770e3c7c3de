import type { McpServer } from '@modelcontextprotocol/server';

/** The one prompt: the claim → heartbeat → report loop, in the few lines a newcomer agent needs. */
export const WORK_NEXT_TICKET = [
  'Work the next ticket:',
  '1. tickets_list with claimable=true (add boardId to stay on one board); pick the highest priority.',
  '2. tickets_claim it. TICKET_ALREADY_CLAIMED: pick another. Keep the claimCount it returns.',
  '3. tickets_get for the description and latest comments; do the work.',
  '4. Every few minutes, and before long steps, tickets_heartbeat. CLAIM_NOT_HELD or CLAIM_SUPERSEDED: stop, someone else owns it now.',
  '5. Finish with tickets_report (outcome done, blocked, needs_review or partial; a short summary; releaseClaim=true).',
  'AGENT_APPROVAL_REQUIRED on a status change means a person must approve it: report needs_review instead.',
].join('\n');

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'work_next_ticket',
    { title: 'Work the next ticket', description: 'The claim → heartbeat → report loop for an agent' },
    async () => ({ messages: [{ role: 'user', content: { type: 'text', text: WORK_NEXT_TICKET } }] }),
  );
}
