import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Clock } from '../core/clock.js';
import { answerSealingKey } from '../core/config.js';
import { AppError, Conflict } from '../core/errors.js';
import { sha256Hex } from '../core/ids.js';
import { seal, unseal } from '../core/sealed.js';
import { log } from '../core/telemetry.js';
import { db } from './service.js';
import { guarded, isConditionFailure, markingWork, type CreatedRef, type WorkMark } from './transact.js';

/**
 * Idempotency keys (the IETF `Idempotency-Key` header draft; MCP's `idempotencyKey`): the first
 * answer to a write sent with a key is kept for 24 hours and given again to the same key with the
 * same request, without doing the work twice. Keys belong to the caller's organization and actor.
 *
 *   - the same key while the first request still runs → 409 IDEMPOTENCY_KEY_IN_USE;
 *   - the same key with another request (once the first has answered) → 422 IDEMPOTENCY_KEY_REUSED;
 *   - a first request that fails (an error, or an answer `keep` refuses) keeps nothing: the key is
 *     free again, and a retry runs anew (a refused request changed nothing);
 *   - a first request that died before its work committed (its function timed out, the runtime
 *     was killed) frees its key after the reservation (IN_PROGRESS_MS);
 *   - a first request that died after its work committed, before its answer was kept, never frees
 *     its key: the work's transaction marked the record COMMITTED (lib/db/transact.ts,
 *     `markingWork`), and the same key is answered 409 IDEMPOTENCY_KEY_COMMITTED naming what the
 *     work created, never run again. A transaction is marked only while the request holds its key,
 *     so a request whose reservation lapsed and was taken over commits nothing.
 *
 * Cost: one conditional Put before the work, one more item in each transaction of the work, and
 * one Update after it; a replay is the Put that fails and one consistent Get. Nothing at all
 * without a key.
 */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** Longer than any function may run (10 s for HTTP); IDEMPOTENCY_RESERVATION_SECONDS sets another (tests of a crash). */
const inProgressMs = () => (Number(process.env.IDEMPOTENCY_RESERVATION_SECONDS) || 30) * 1000;
/** A sealed answer above this is not kept (an item holds at most 400 KB); its key is freed instead. */
const MAX_SEALED_CHARS = 350_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export interface IdempotentCall {
  orgId: string;
  actorId: string;
  /** The key as the client sent it (1–255 characters). */
  key: string;
  /** What the key is sent with: a retry must send exactly this again. */
  payload: string;
  requestId: string;
  clock: Clock;
}

export const idempotencyKeyReused = () =>
  new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used with a different request; use a new key for a new request');
export const idempotencyKeyCommitted = (created: CreatedRef[]) =>
  new AppError(
    'IDEMPOTENCY_KEY_COMMITTED',
    'The first request with this idempotency key took effect, but the service stopped before it answered, so there is no answer to give again; read what it created (details.created) instead of repeating it',
    { created },
  );
export const idempotencyKeyInUse = () =>
  new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this idempotency key is still running; retry after it has answered', undefined, { 'Retry-After': '1' });

/**
 * Runs `run` once per (organization, actor, key): the first call runs it and, when `keep` accepts
 * its answer, keeps that answer; later calls with the same payload get it back (`replayed`).
 */
export async function runIdempotently<T>(call: IdempotentCall, run: () => Promise<T>, keep: (answer: T) => boolean): Promise<{ answer: T; replayed: boolean }> {
  const records = db().entities.idempotencyRecord;
  const key = { orgId: call.orgId, actorId: call.actorId, keyHash: sha256Hex(call.key) };
  const payloadHash = sha256Hex(call.payload);
  const now = call.clock.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  try {
    await records
      .put({
        ...key,
        payloadHash,
        status: 'IN_PROGRESS',
        requestId: call.requestId,
        inProgressUntil: now.getTime() + inProgressMs(),
        createdAt: now.toISOString(),
        ttl: nowSeconds + IDEMPOTENCY_WINDOW_SECONDS,
      })
      // Free: never used, past its 24 hours (TTL deletes late), or held by a request that died.
      .where((attr, op) => `${op.notExists(attr.status)} OR ${op.lt(attr.ttl, nowSeconds)} OR (${op.eq(attr.status, 'IN_PROGRESS')} AND ${op.lt(attr.inProgressUntil, now.getTime())})`)
      .go({ response: 'none' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { answer: await replay<T>(key, payloadHash, now), replayed: true };
  }

  let committed = false;
  // Only a request whose work committed nothing frees its key: once it committed, the key stays spent.
  const release = async () => {
    if (committed) return;
    await records.delete(key).where((attr, op) => op.eq(attr.requestId, call.requestId)).go({ response: 'none' }).catch(() => undefined);
  };
  const mark: WorkMark = {
    item: (e, created) => {
      const update = e.idempotencyRecord.patch(key).set({ status: 'COMMITTED' });
      return guarded(
        (created.length ? update.add({ created: created.map((ref) => `${ref.type}:${ref.id}`) }) : update).where((attr, op) => op.eq(attr.requestId, call.requestId)).commit(),
        idempotencyKeyInUse,
      );
    },
    committed: () => {
      committed = true;
    },
  };
  let answer: T;
  try {
    answer = await markingWork(mark, run);
  } catch (error) {
    await release();
    throw error;
  }
  if (!keep(answer)) {
    await release();
    return { answer, replayed: false };
  }
  const sealed = seal(deflateRawSync(JSON.stringify(answer)).toString('base64'), answerSealingKey());
  if (sealed.length > MAX_SEALED_CHARS) {
    log.warn('answer too large to keep for its idempotency key', { orgId: call.orgId, requestId: call.requestId, sealedChars: sealed.length });
    await release();
    return { answer, replayed: false };
  }
  await records
    .patch(key)
    .set({ status: 'COMPLETED', answer: sealed })
    .remove(['created'])
    .where((attr, op) => op.eq(attr.requestId, call.requestId))
    .go({ response: 'none' })
    .catch((error: unknown) => {
      // Only a request that outlived IN_PROGRESS_MS loses its key; its answer stands.
      if (!isConditionFailure(error)) throw error;
    });
  return { answer, replayed: false };
}

async function replay<T>(key: { orgId: string; actorId: string; keyHash: string }, payloadHash: string, now: Date): Promise<T> {
  const record = (await db().entities.idempotencyRecord.get(key).go({ consistent: true })).data;
  // Gone between the two calls (the first request failed and freed it): the client may simply retry.
  if (!record) throw idempotencyKeyInUse();
  if (record.status !== 'IN_PROGRESS' && record.payloadHash !== payloadHash) throw idempotencyKeyReused();
  if (record.status === 'COMMITTED' && record.inProgressUntil < now.getTime()) {
    // Its work took effect and the request died before answering: name what it made, never run it again.
    throw idempotencyKeyCommitted((record.created ?? []).map((ref) => ({ type: ref.slice(0, ref.indexOf(':')), id: ref.slice(ref.indexOf(':') + 1) })));
  }
  if (record.status !== 'COMPLETED' || !record.answer) throw idempotencyKeyInUse();
  try {
    return JSON.parse(inflateRawSync(Buffer.from(unseal(record.answer, answerSealingKey()), 'base64')).toString('utf8')) as T;
  } catch {
    // Sealed under a key since rotated (docs/operations.md): the answer cannot be given again.
    throw new Conflict('The first answer to this idempotency key can no longer be read (the service key was rotated); check whether the first request took effect, then use a new key');
  }
}

/**
 * The `Idempotency-Key` header: absent, or 1–255 characters (a Structured Fields string, quoted
 * as the draft writes it, or the bare value).
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  return checkIdempotencyKey(/^".*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed, 'Idempotency-Key');
}

/** A key of 1–255 characters, or 400 VALIDATION_ERROR naming `field`. */
export function checkIdempotencyKey(key: string, field: string): string {
  if (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new AppError('VALIDATION_ERROR', `${field} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, {
      issues: [{ path: field, message: `Must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` }],
    });
  }
  return key;
}
