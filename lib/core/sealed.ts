import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets the service must recover (webhook signing secrets), sealed with AES-256-GCM: a fresh
 * 12-byte IV each time, the 16-byte tag authenticating the result. Stored as base64 of
 * IV ‖ ciphertext ‖ tag.
 */
export function seal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

/** The plaintext of a value sealed under any of `keys` (tried in order); throws when none opens it. */
export function unsealWithAny(sealed: string, keys: readonly Buffer[]): string {
  for (const [index, key] of keys.entries()) {
    try {
      return unseal(sealed, key);
    } catch (error) {
      if (index === keys.length - 1) throw error;
    }
  }
  throw new Error('No key to open the sealed value');
}

/** The plaintext of a sealed value; throws when the key is wrong or the value was altered. */
export function unseal(sealed: string, key: Buffer): string {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
}
