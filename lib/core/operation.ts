import { AsyncLocalStorage } from 'node:async_hooks';
import * as z from 'zod';
import { AppError, type ErrorCode } from './errors.js';

/*
 * An operation: one thing a caller can ask of a domain, declared once in its domain
 * (`lib/<domain>/operations.ts`) and adapted by every interface that offers it: the REST route
 * (`fromOperation`, lib/http/routes.ts) and the MCP tool (`tool`, lib/mcp/tools.ts) take their
 * input fields, the scope, fencing, idempotency and errors from it and declare none of their own.
 * docs/design/code.md, "One declaration per operation", says how to add one.
 */

/** What an OAuth access token needs for an operation (docs/oauth.md): it reads, it writes, or it administers. */
export type OperationScope = 'read' | 'write' | 'admin';

/** What an operation acts on, named by the caller beside its input. */
export type OperationTarget = 'ticket' | 'board';

export interface Operation<I extends z.ZodObject = z.ZodObject, T extends OperationTarget | undefined = OperationTarget | undefined> {
  /** `<domain>.<verb>`: how the docs and tests name it. */
  readonly name: string;
  readonly scope: OperationScope;
  /**
   * What it acts on, named by the caller: `ticket` (REST: the board and ticket in the path, a
   * display id accepted; MCP: `ticketId` or `displayId`), `board` (REST: the path; MCP: `boardId`),
   * or nothing beyond its input.
   */
  readonly target?: T;
  /**
   * Fenced (docs/claims.md, "Fencing"): it writes a ticket and takes the claim the caller works
   * under (REST: `X-Claim-Count`; MCP: `claimCount`), refused with CLAIM_SUPERSEDED once that
   * lease is no longer the caller's.
   */
  readonly fenced: boolean;
  /**
   * Idempotent by nature: doing it twice leaves what doing it once leaves. The others take an
   * idempotency key (REST: `Idempotency-Key`; MCP: `idempotencyKey`) so a retry does not do the work twice.
   */
  readonly idempotent: boolean;
  /** The error codes it answers beyond those every operation can (lib/core/errors.ts). */
  readonly errors: readonly ErrorCode[];
  /** The webhook events (docs/webhooks.md) it can emit, by the catalogue's names (listed in the API reference as `x-webhook-events`). */
  readonly emits: readonly string[];
  /** The background jobs it can enqueue (docs/design/events-and-jobs.md), by their kinds' names. */
  readonly jobs?: readonly string[];
  /** Its input fields with their limits, defaults and clamping; built on first use (lib/core/shapes.ts says why). None when not given. */
  readonly input: () => I;
}

/**
 * Declares an operation; its input is built once, when first read. Declarations are marked
 * pure (an `@__PURE__` comment), so a function's bundle keeps only the operations its routes use.
 */
export function operation<I extends z.ZodObject = z.ZodObject<Record<never, never>>, T extends OperationTarget | undefined = undefined>(
  declared: Omit<Operation<I, T>, 'input'> & { input?: () => I },
): Operation<I, T> {
  let built: I | undefined;
  const input = declared.input ?? (() => z.object({}) as unknown as I);
  return { ...declared, input: () => (built ??= input()) };
}

/** The types of the outbox records built while a checked operation runs (`withDeclaredEmits`); unset otherwise, and then nothing is kept. */
const written = new AsyncLocalStorage<Set<string>>();

/** Notes an outbox record's type (lib/events/outbox.ts calls it for every record it builds). */
export function noteEmitted(type: string): void {
  written.getStore()?.add(type);
}

/**
 * Runs an operation and fails it when it wrote an outbox record its declaration does not name
 * (`emits`, `jobs`): the check of test runs (VALIDATE_RESPONSES) that an operation's declared events
 * and jobs are all it emits. The router and the MCP server call it there; deployed functions never do.
 */
export async function withDeclaredEmits<T>(operation: Pick<Operation, 'name' | 'emits' | 'jobs'>, run: () => Promise<T>): Promise<T> {
  const types = new Set<string>();
  const result = await written.run(types, run);
  const undeclared = [...types].filter((type) => !operation.emits.includes(type) && !operation.jobs?.includes(type));
  if (undeclared.length > 0) throw new AppError('INTERNAL_ERROR', `The operation ${operation.name} emitted what it does not declare`, { undeclared });
  return result;
}
