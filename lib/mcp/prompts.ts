import type { McpServer } from '@modelcontextprotocol/server';

/** The one prompt: the claim-next → heartbeat → report loop, in the few lines a newcomer agent needs. */
export const WORK_NEXT_TICKET = [
  'Work the next ticket:',
  '1. tickets_claim_next (boardIds to stay on some boards). claim null: nothing is ready (or dispatchPaused: you are held back), stop. Keep its claimCount; read its handoff (where the last holder stopped).',
  '2. tickets_get for the description and latest comments; do the work. Pass claimCount with every write.',
  '3. Every few minutes, tickets_heartbeat with a note of your progress. CLAIM_NOT_HELD or CLAIM_SUPERSEDED: stop, someone else owns it now.',
  '   Its answer carries what people ask: directive stop: tickets_release at once with a summary; pause: do no work, keep heartbeating until resume. Read its messages and act on them.',
  '4. Finish with tickets_report (outcome done, blocked, needs_review or partial; a short summary; releaseClaim=true), or hand over: tickets_release with summary and nextSteps.',
  'AGENT_APPROVAL_REQUIRED on a status change means a person must approve it: report needs_review instead.',
].join('\n');

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'work_next_ticket',
    { title: 'Work the next ticket', description: 'The claim → heartbeat → report loop for an agent' },
    async () => ({ messages: [{ role: 'user', content: { type: 'text', text: WORK_NEXT_TICKET } }] }),
  );
}
