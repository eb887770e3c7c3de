import { scrypt, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 64;
const COST = 16384;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { N: COST, r: 8, p: 1 }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return `scrypt$${COST}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  // Without a stored hash we still spend the same work, so timing does not reveal unknown e-mails.
  const [scheme, , saltText, keyText] = (stored ?? `scrypt$${COST}$${DUMMY_SALT}$${DUMMY_KEY}`).split('$');
  if (scheme !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64url');
  const actual = await derive(password, Buffer.from(saltText, 'base64url'));
  return stored !== undefined && expected.length === actual.length && timingSafeEqual(expected, actual);
}

const DUMMY_SALT = randomBytes(16).toString('base64url');
const DUMMY_KEY = randomBytes(KEY_LENGTH).toString('base64url');
