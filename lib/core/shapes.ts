import * as z from 'zod';

/*
 * Building blocks of the resource shapes (what the service sends; no transforms): each documents
 * a field the way clients meet it and is checked against every response in test runs.
 */

/** An ISO 8601 UTC timestamp as the service writes it (`2026-11-22T10:00:00.000Z`). */
export const timestamp = z.iso.datetime();

/** An id of the service (prefixed, e.g. `brd_…`, `tkt_…`). */
export const anId = z.string().min(1);
