/** Board prefixes (the API reference): 2-10 alphanumeric characters, stored upper-case, unique per organization. */
export const PREFIX_PATTERN = /^[A-Za-z0-9]{2,10}$/;
export const MAX_PREFIX_LENGTH = 10;

/** Used when a name has too few letters or digits to derive a prefix from. */
const FALLBACK_PREFIX = 'BRD';

/**
 * The prefix derived from a board name: the initials of its words when it has several
 * ("Mobile App" → "MA"), else the first three characters of its one word ("Backend" →
 * "BAC"). Accents are dropped; anything that is not A-Z or 0-9 separates words.
 */
export function prefixFromName(name: string): string {
  const words = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
  const base = words.length >= 2 ? words.map((word) => word[0]).join('') : (words[0] ?? '').slice(0, 3);
  return base.length >= 2 ? base.slice(0, MAX_PREFIX_LENGTH) : FALLBACK_PREFIX;
}

/**
 * Alternatives to a taken prefix, in the order they are tried: the base with 2, 3, … 99
 * appended, the base shortened where needed so the result keeps to 10 characters.
 */
export function prefixAlternatives(base: string): string[] {
  return Array.from({ length: 98 }, (_, index) => {
    const suffix = String(index + 2);
    return base.slice(0, MAX_PREFIX_LENGTH - suffix.length) + suffix;
  });
}
