import { SignJWT, jwtVerify } from 'jose';
import { config } from '../core/config.js';

const ISSUER = 'work-management';
const AUDIENCE = 'work-management-api';

export interface SessionClaims {
  userId: string;
  orgId: string;
  sessionId: string;
}

/** Session JWT (HS256). The session id names a server-side record, so logout revokes at once. */
export async function signSessionJwt(claims: SessionClaims, issuedAt: Date, ttlSeconds: number): Promise<string> {
  const iat = Math.floor(issuedAt.getTime() / 1000);
  return new SignJWT({ org: claims.orgId, sid: claims.sessionId, typ: 'session' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(config().jwtSecret);
}

export async function verifySessionJwt(token: string, now: Date): Promise<SessionClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, config().jwtSecret, {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
      currentDate: now,
    });
    if (payload.typ !== 'session' || typeof payload.sub !== 'string' || typeof payload.org !== 'string' || typeof payload.sid !== 'string') {
      return undefined;
    }
    return { userId: payload.sub, orgId: payload.org, sessionId: payload.sid };
  } catch {
    return undefined;
  }
}

export const looksLikeJwt = (token: string): boolean => token.split('.').length === 3;
