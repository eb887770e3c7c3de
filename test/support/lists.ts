import { expect } from 'vitest';
import type { TestOrg } from './api.js';

/** The body of an answer that must have this status (200 unless given); the assertion shows the body otherwise. */
export async function answered(response: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const answer = await response;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}

/** Every page of a ticket list (`path` carries its query) read `limit` at a time: the ids in order and the total. */
export async function allPages(org: TestOrg, path: string, limit: number): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = 0;
  for (let page = 1; page <= 50; page += 1) {
    const body = await answered(org.call('GET', `${path}&limit=${limit}&page=${page}`));
    total = body.total;
    ids.push(...body.data.map((ticket: { id: string }) => ticket.id));
    if (page >= body.totalPages) break;
  }
  return { ids, total };
}
