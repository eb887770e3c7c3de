import { validationError } from './errors.js';

/** A lone UTF-16 surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a string is well-formed UTF-16. JSON can carry an unpaired surrogate (`"\ud800"`),
 * but such a string has no UTF-8 form: DynamoDB would store a replacement character and the
 * text would not come back as sent, so it is refused like invalid UTF-8.
 */
export const isWellFormedText = (text: string): boolean => !UNPAIRED_SURROGATE.test(text);

/**
 * The paths (`a.b.0`) of every string, and every object key, in `value` that is not
 * well-formed. Walked with a stack of its own, not by recursion, so no nesting overflows it.
 */
export function malformedTextPaths(value: unknown): string[] {
  const found: string[] = [];
  const pending: Array<[unknown, string[]]> = [[value, []]];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'string') {
      if (!isWellFormedText(item)) found.push(path.join('.'));
    } else if (Array.isArray(item)) {
      item.forEach((entry, index) => {
        pending.push([entry, [...path, String(index)]]);
      });
    } else if (item && typeof item === 'object') {
      for (const [key, entry] of Object.entries(item)) {
        if (isWellFormedText(key)) pending.push([entry, [...path, key]]);
        else found.push([...path, key].join('.'));
      }
    }
  }
  return found.reverse();
}

/** 400 VALIDATION_ERROR naming every field whose text holds an unpaired surrogate. */
export function refuseMalformedText(value: unknown, root: string): void {
  const paths = malformedTextPaths(value);
  if (paths.length > 0) throw validationError(paths.map((path) => ({ path: path || root, message: 'Contains an unpaired UTF-16 surrogate (not valid Unicode text)' })));
}

/* C0 controls, DEL and C1 controls are never part of a URL as written (RFC 3986 §2; WHATWG URL strips or encodes them). */
/** Whether a text holds a control character (NUL, BEL, tab, newline, DEL, C1…). */
export function hasControlCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** `4000` → `4,000`: digits grouped by hand, since Intl (toLocaleString) costs a cold start several milliseconds when first used at import. */
export const groupDigits = (value: number): string => String(value).replace(/\B(?=(\d{3})+$)/g, ',');
