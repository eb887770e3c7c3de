/**
 * One page of a fully read, filtered result set with its exact total (the API reference). A domain
 * value: the REST adapter renders it as the spec's page envelope (`{data, total, page,
 * pageSize, totalPages}`, lib/http/pagination.ts); other adapters may render it otherwise.
 */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

export function pageOf<T>(items: readonly T[], page: number, limit: number): Page<T> {
  const start = (page - 1) * limit;
  return {
    items: items.slice(start, start + limit),
    total: items.length,
    page,
    pageSize: limit,
    totalPages: Math.ceil(items.length / limit),
  };
}

/** One page already read (its `items`) whose exact `total` was counted apart (an index's page and its COUNT, or a maintained count). */
export function pageWithTotal<T>(items: T[], total: number, page: number, limit: number): Page<T> {
  return { items, total, page, pageSize: limit, totalPages: Math.ceil(total / limit) };
}

/**
 * One page of a list read in key order, newest first, with where the next page starts (an
 * opaque cursor; null at the end). The REST adapter answers the items as a bare array and the
 * next page's address in a `Link: <…>; rel="next"` header (lib/http/router.ts).
 */
export interface CursorPage<T> {
  items: T[];
  next: string | null;
}
