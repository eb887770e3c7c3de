import * as z from 'zod';

/*
 * Building blocks of the resource shapes (what the service sends; no transforms): each documents
 * a field the way clients meet it and is checked against every response in test runs.
 *
 * Each domain's result shapes (`lib/<domain>/shapes.ts`) are declared `z.lazy(() => …)`: a
 * deployed function validates no response, so it never builds them, and building them at import
 * was part of every cold start (docs/performance.md, "Cold start"). The reference, the response
 * checks of test runs and the MCP tools build them on first use; a shape composed from another
 * reads it with `.unwrap()`. The OpenAPI document is the same either way (checked when this was
 * introduced, byte for byte).
 */

/** An ISO 8601 UTC timestamp as the service writes it (`2026-11-22T10:00:00.000Z`). */
export const timestamp = z.iso.datetime();

/** An id of the service (prefixed, e.g. `brd_…`, `tkt_…`). */
export const anId = z.string().min(1);
