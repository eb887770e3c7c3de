/**
 * Tickets for the benchmarks written through the API's own write path: `POST …/tickets`
 * dispatched in process (the same route table, API Gateway stand-in and handlers as the local
 * runtime, without a socket, as the tests' `useInProcess`), several at once. Each ticket is what
 * an API client writes, so everything the write path keeps beside it (column and facet counts,
 * the search index, the outbox the events function reads) is as a real board has it.
 */
import { createDispatcher, type Dispatch } from '../../infra/local/api-gateway.js';
import { loadHttpRoutes } from '../../infra/local/runtime.js';
import { forEachAtMost } from '../../lib/core/concurrency.js';

const DESCRIPTION = 'Steps to reproduce: open the board, filter by status, scroll to the end of the column and check the totals.';

export interface ApiSeedVocabulary {
  activeStatusIds: string[];
  typeId: string;
  assigneeId: string;
  /** When given: every 7th ticket carries this label. */
  labelId?: string;
  /** When given: every 11th ticket is for this customer. */
  customerId?: string;
}

let dispatcher: Promise<Dispatch> | undefined;

/** The body of ticket `number`: varied ACTIVE statuses and priorities, every 5th assigned, every 3rd due. */
function ticketBody(number: number, vocabulary: ApiSeedVocabulary): Record<string, unknown> {
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  return {
    title: `Ticket ${number}: ${['fix', 'build', 'review', 'document'][number % 4]} the ${['login', 'export', 'search', 'billing', 'import'][number % 5]} flow`,
    description: DESCRIPTION,
    statusId: vocabulary.activeStatusIds[number % vocabulary.activeStatusIds.length],
    priority: ['low', 'medium', 'high', 'critical'][number % 4],
    typeId: vocabulary.typeId,
    ...(vocabulary.labelId && number % 7 === 0 ? { labelIds: [vocabulary.labelId] } : {}),
    ...(vocabulary.customerId && number % 11 === 0 ? { customerId: vocabulary.customerId } : {}),
    ...(number % 5 === 0 ? { assigneeId: vocabulary.assigneeId } : {}),
    ...(number % 3 === 0 ? { dueDate: new Date(start + (number - 2_000) * 86_400_000).toISOString() } : {}),
  };
}

/** Creates tickets number `from` to `from + count - 1` on a board with `POST …/tickets`, `writers` at once; any refusal throws. */
export async function seedBoardThroughApi(headers: Record<string, string>, boardId: string, vocabulary: ApiSeedVocabulary, count: number, from = 1, writers = 16): Promise<void> {
  dispatcher ??= loadHttpRoutes().then(createDispatcher);
  const dispatch = await dispatcher;
  const numbers = Array.from({ length: count }, (_, index) => from + index);
  await forEachAtMost(numbers, writers, async (number) => {
    const body = JSON.stringify(ticketBody(number, vocabulary));
    const result = await dispatch({
      method: 'POST',
      url: `/api/v1/boards/${boardId}/tickets`,
      headers: { ...headers, host: 'localhost', 'content-type': 'application/json' },
      body: Buffer.from(body, 'utf8'),
      sourceIp: '127.0.0.1',
    });
    if (result.statusCode !== 201) throw new Error(`POST …/tickets answered ${result.statusCode}: ${result.body}`);
  });
}
