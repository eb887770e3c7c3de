import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** Id prefixes of every resource (the API reference shows them in its examples). */
export type IdPrefix =
  | 'org' | 'usr' | 'brd' | 'sts' | 'typ' | 'team' | 'cst' | 'grp' | 'tok' | 'ses'
  | 'tkt' | 'cmt' | 'lbl' | 'cf' | 'evt' | 'tle' | 'ms' | 'rel' | 'ws' | 'wh' | 'dlv' | 'tmr' | 'te' | 'ntf' | 'sug'
  | 'pr' | 'pl' | 'cli' | 'grt' | 'atk' | 'bki' | 'tse' | 'wpg' | 'wfd' | 'wpv' | 'hof' | 'job' | 'inv' | 'rst' | 'mail' | 'lmsg';

/** `<prefix>_<ULID>`: sortable by creation time, opaque to clients. */
export const newId = (prefix: IdPrefix): string => `${prefix}_${nextUlid()}`;

/** Random secret material, URL-safe. 32 bytes unless told otherwise. */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Constant-time comparison of two strings (equal length required by timingSafeEqual). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}
