import type { Page } from '../core/pages.js';

/** The paginated envelope (the API reference) of a domain page. */
export function pageEnvelope<T>(page: Page<T>) {
  return { data: page.items, total: page.total, page: page.page, pageSize: page.pageSize, totalPages: page.totalPages };
}
