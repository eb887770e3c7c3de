export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** The spec's paginated envelope (§2.1) over a fully read, filtered result set (exact total). */
export function paginate<T>(items: readonly T[], page: number, limit: number): Page<T> {
  const start = (page - 1) * limit;
  return {
    data: items.slice(start, start + limit),
    total: items.length,
    page,
    pageSize: limit,
    totalPages: Math.ceil(items.length / limit),
  };
}
