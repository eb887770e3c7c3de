import { newId } from '../core/ids.js';
import { addSeconds, epochSeconds } from '../core/clock.js';
import { config } from '../core/config.js';
import type { Db } from '../db/service.js';
import { signSessionJwt } from './sessions.js';

export interface IssuedSession {
  token: string;
  expiresIn: number;
  /** Put this into the transaction that logs the user in. */
  record: Parameters<Db['entities']['credential']['create']>[0];
}

/** A session JWT and its server-side record (which logout deletes and expiry ends). */
export async function issueSession(orgId: string, userId: string, now: Date): Promise<IssuedSession> {
  const sessionId = newId('ses');
  const ttlSeconds = config().sessionTtlSeconds;
  const expiresAt = addSeconds(now, ttlSeconds);
  const token = await signSessionJwt({ orgId, userId, sessionId }, now, ttlSeconds);
  return {
    token,
    expiresIn: ttlSeconds,
    record: {
      lookupKey: sessionId,
      kind: 'SESSION',
      orgId,
      userId,
      expiresAt: expiresAt.toISOString(),
      ttl: epochSeconds(expiresAt),
      createdAt: now.toISOString(),
    },
  };
}
