/**
 * The inbox as an MCP Apps view (lib/mcp/apps.ts): rendered by an AI client in a sandboxed frame,
 * it shows what `inbox_show` returned and decides through the server's own tools
 * (`suggestions_decide`, `time_entries_decide`) by way of the host, then shows the inbox again.
 * Every text is set as text, never as markup.
 */
import { App } from '@modelcontextprotocol/ext-apps';

interface Inbox {
  suggestions: { id: string; boardId: string; ticketId: string; displayId: string; title: string; to: string | null; reason: string | null; by: string }[];
  suggestionsTotal: number;
  pendingTime: { id: string; agent: string; minutes: number; description: string; displayId: string | null }[];
  pendingTimeTotal: number;
  mayApproveTime: boolean;
}

const app = new App({ name: 'Work-management inbox', version: '1.0.0' });
const root = document.getElementById('inbox')!;
const status = document.getElementById('status')!;

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function button(label: string, accessibleName: string, onClick: () => void, kind = 'primary'): HTMLButtonElement {
  const node = element('button', label, kind);
  node.type = 'button';
  node.setAttribute('aria-label', accessibleName);
  node.addEventListener('click', onClick);
  return node;
}

/** Calls a tool through the host; a refusal shows the server's message. */
async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const result = await app.callServerTool({ name, arguments: args });
  if (result.isError) {
    const text = (result.content as { type: string; text?: string }[] | undefined)?.find((part) => part.type === 'text')?.text ?? 'The request failed';
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
    } catch {
      // Not JSON: shown as it is.
    }
    status.textContent = message;
    return undefined;
  }
  return result.structuredContent as Record<string, unknown> | undefined;
}

async function refresh(): Promise<void> {
  const inbox = await call('inbox_show', {});
  if (inbox) render(inbox as unknown as Inbox);
}

async function decide(name: string, args: Record<string, unknown>, done: string): Promise<void> {
  for (const node of root.querySelectorAll('button')) node.disabled = true;
  if (await call(name, args)) status.textContent = done;
  await refresh();
}

function render(inbox: Inbox): void {
  root.replaceChildren();
  const moves = element('section');
  moves.append(element('h2', `Suggested moves (${inbox.suggestionsTotal})`));
  if (inbox.suggestions.length === 0) moves.append(element('p', 'No suggestion waits.', 'muted'));
  const list = element('ul');
  for (const item of inbox.suggestions) {
    const row = element('li');
    const what = element('div');
    what.append(element('strong', `${item.displayId} ${item.title}`), element('span', ` → ${item.to ?? '?'}, suggested by ${item.by}`, 'muted'));
    if (item.reason) what.append(element('p', item.reason, 'reason'));
    const reason = element('input');
    reason.placeholder = 'Reason (optional)';
    reason.maxLength = 500;
    reason.setAttribute('aria-label', `Reason for ${item.displayId}`);
    const ids = { boardId: item.boardId, ticketId: item.ticketId, suggestionId: item.id };
    const actions = element('div', undefined, 'actions');
    actions.append(
      button('Approve', `Approve ${item.displayId}`, () => void decide('suggestions_decide', { ...ids, decision: 'accept', ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) }, `${item.displayId} moved to ${item.to ?? 'its new status'}.`)),
      reason,
      button('Reject', `Reject ${item.displayId}`, () => void decide('suggestions_decide', { ...ids, decision: 'reject', ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) }, `The move of ${item.displayId} was rejected.`), 'secondary'),
    );
    row.append(what, actions);
    list.append(row);
  }
  moves.append(list);
  root.append(moves);

  if (inbox.mayApproveTime) {
    const time = element('section');
    time.append(element('h2', `Agent time to approve (${inbox.pendingTimeTotal})`));
    if (inbox.pendingTime.length === 0) time.append(element('p', 'No agent time waits.', 'muted'));
    const entries = element('ul');
    for (const entry of inbox.pendingTime) {
      const row = element('li');
      const label = `${entry.minutes} min by ${entry.agent}${entry.displayId ? ` on ${entry.displayId}` : ''}`;
      const what = element('div');
      what.append(element('strong', label), element('span', ` ${entry.description}`, 'muted'));
      const actions = element('div', undefined, 'actions');
      actions.append(
        button('Approve', `Approve ${label}`, () => void decide('time_entries_decide', { entryId: entry.id, decision: 'approve' }, `Approved ${label}.`)),
        button('Reject', `Reject ${label}`, () => void decide('time_entries_decide', { entryId: entry.id, decision: 'reject' }, `Rejected ${label}.`), 'secondary'),
      );
      row.append(what, actions);
      entries.append(row);
    }
    time.append(entries);
    root.append(time);
  }
}

app.ontoolresult = (result) => {
  if (result.structuredContent && !result.isError) render(result.structuredContent as unknown as Inbox);
};

await app.connect();
