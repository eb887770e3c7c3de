import { validationError } from './errors.js';

/** A lone UTF-16 surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a string is well-formed UTF-16. JSON can carry an unpaired surrogate (`"\ud800"`),
 * but such a string has no UTF-8 form: DynamoDB would store a replacement character and the
 * text would not come back as sent, so it is refused like invalid UTF-8.
 */
export const isWellFormedText = (text: string): boolean => !UNPAIRED_SURROGATE.test(text);

/** The paths (`a.b.0`) of every string, and every object key, in `value` that is not well-formed. */
export function malformedTextPaths(value: unknown, path: string[] = []): string[] {
  if (typeof value === 'string') return isWellFormedText(value) ? [] : [path.join('.')];
  if (Array.isArray(value)) return value.flatMap((item, index) => malformedTextPaths(item, [...path, String(index)]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => (isWellFormedText(key) ? malformedTextPaths(item, [...path, key]) : [[...path, key].join('.')]));
  }
  return [];
}

/** 400 VALIDATION_ERROR naming every field whose text holds an unpaired surrogate. */
export function refuseMalformedText(value: unknown, root: string): void {
  const paths = malformedTextPaths(value);
  if (paths.length > 0) throw validationError(paths.map((path) => ({ path: path || root, message: 'Contains an unpaired UTF-16 surrogate (not valid Unicode text)' })));
}

/** `4000` → `4,000`: digits grouped by hand, since Intl (toLocaleString) costs a cold start several milliseconds when first used at import. */
export const groupDigits = (value: number): string => String(value).replace(/\B(?=(\d{3})+$)/g, ',');
