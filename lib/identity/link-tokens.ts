/**
 * The token of a mailed link (an invitation, a password reset): `<id>.<secret>`. The id names the
 * item (one GetItem finds it); the item keeps only the secret's SHA-256.
 */
export function splitLinkToken(token: string, prefix: 'inv' | 'rst'): { id: string; secret: string } | undefined {
  const [id, secret, ...rest] = token.split('.');
  if (rest.length > 0 || !id?.startsWith(`${prefix}_`) || !secret) return undefined;
  return { id, secret };
}
