import * as z from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../db/idempotency.js';
import type { Route, Routes } from './routes.js';
import { errorBody, errorDescription, errorResponses, oauthErrorBody, successBody, successStatus } from './responses.js';

/** One function's routes, as the route table names them (the group name becomes the tag). */
export interface RouteGroup {
  name: string;
  description: string;
  routes: Routes;
}

export type DocumentInfo = Parameters<typeof createDocument>[0]['info'];

/**
 * The OpenAPI 3.1 document of the service, generated from the route maps and nothing else:
 * each route's key gives the path and method, its zod schemas the parameters, body and
 * success response, its kind and declared errors the error responses (lib/http/responses.ts).
 */
export function openApiDocument(groups: readonly RouteGroup[], info: DocumentInfo): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const group of groups) {
    for (const [routeKey, route] of Object.entries(group.routes)) {
      const match = /^([A-Z]+) (\/\S*)$/.exec(routeKey);
      if (!match) continue; // `$default` is not an operation
      const [, method, path] = match as unknown as [string, string, string];
      paths[path] ??= {};
      const item = paths[path] as Record<string, ZodOpenApiOperationObject>;
      item[method.toLowerCase()] = operation(routeKey, route, group.name, method, path);
    }
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: { license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' }, ...info },
      // Replaced, in the document the service serves, by the origin the request reached.
      servers: [
        {
          url: 'https://{organization}.{baseDomain}',
          description: "An organization's own origin",
          variables: { organization: { default: 'acme', description: "The organization's slug" }, baseDomain: { default: 'api.example.com', description: 'The base domain of the deployment' } },
        },
      ],
      tags: groups.filter((group) => Object.keys(group.routes).some((key) => key.includes(' /'))).map((group) => ({ name: group.name, description: group.description })),
      paths,
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A session token (from sign-up or login), a personal access token (`wmp_…`), an agent token (`wma_…`) or an OAuth access token (a JWT from `/api/v1/oauth/token`, accepted on the organization’s own origin within its scopes). The organization is the subdomain (`<slug>.<base domain>`), or the `X-Organization` header on a host without one (e.g. localhost; there, a request naming none reaches the local runtime’s `DEFAULT_ORGANIZATION`, if set).',
          },
          platformOperator: { type: 'http', scheme: 'bearer', description: "The platform operator's token (deployment setting), for `/api/v1/platform/…` only" },
        },
      },
    },
  );
}

function operation(routeKey: string, route: Route, tag: string, method: string, path: string): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponsesObject[keyof ZodOpenApiResponsesObject]> = {};
  const body = successBody(route);
  const status = successStatus(route);
  for (const rawStatus of route.raw?.statuses ?? []) {
    responses[String(rawStatus)] = rawStatus >= 300 && rawStatus < 400
      ? { description: 'Redirect (see `Location`)' }
      : { description: rawStatus < 300 ? 'OK' : errorDescription(rawStatus), content: { [route.raw!.contentType]: { schema: route.raw!.schema ?? z.string() } } };
  }
  responses[String(status)] ??= route.raw
    ? { description: 'OK', content: { [route.raw.contentType]: { schema: route.raw.schema ?? z.string() } } }
    : body
      ? { description: status === 201 ? 'Created' : 'OK', content: { 'application/json': { schema: body } } }
      : { description: status === 204 ? 'Done; no body' : 'OK' };
  if (route.emptyStatus) {
    responses[String(route.emptyStatus)] ??= {
      description: 'Nothing to do; no body',
      ...(route.emptyHeaders
        ? { headers: Object.fromEntries(Object.entries(route.emptyHeaders).map(([name, description]) => [name, { description, schema: { type: 'string' as const } }])) }
        : {}),
    };
  }
  for (const [errorStatus, codes] of errorResponses(routeKey, route)) {
    if (responses[String(errorStatus)]) continue; // a page of a `raw` route
    responses[String(errorStatus)] = {
      description: `${errorDescription(errorStatus)}. Codes:\n${[...codes].map(([code, meaning]) => `- \`${code}\`: ${meaning}`).join('\n')}`,
      content: { 'application/json': { schema: route.errorFormat === 'oauth' ? oauthErrorBody : errorBody } },
    };
  }
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (route.params) requestParams.path = objectOf(route.params);
  if (route.query) requestParams.query = objectOf(route.query);
  const headers: Record<string, z.ZodType> = {};
  if (route.auth === 'credential' && route.fence) {
    headers['x-claim-count'] = z.string().regex(/^\d+$/).optional().meta({ description: 'Fencing: the claimCount of your claim. The write is refused with 409 CLAIM_SUPERSEDED unless that is still your live claim of the ticket.' });
  }
  if (route.auth === 'credential' && method === 'POST') {
    headers['idempotency-key'] = z.string().min(1).max(MAX_IDEMPOTENCY_KEY_LENGTH).optional().meta({
      description:
        'Makes a retry safe: the first successful answer is kept for 24 hours and given again, with `Idempotent-Replayed: true`, to the same key sent with the same request (method, path and body), without doing the work twice. The same key with another request: 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running: 409 `IDEMPOTENCY_KEY_IN_USE`; when the first took effect but the service stopped before it answered (a crash), 409 `IDEMPOTENCY_KEY_COMMITTED` with `details.created` naming what it made (`[{type, id}]`): the work commits together with the record that it was done, so no crash makes a keyed request run twice. Keys belong to your organization and actor. An error answer is not kept.',
    });
  }
  if (Object.keys(headers).length) requestParams.header = z.object(headers);
  return {
    operationId: operationIdOf(method, path),
    summary: route.summary ?? routeKey,
    ...(route.description ? { description: route.description } : {}),
    tags: [tag],
    // What webhook receivers may hear of it (its operation's declaration, lib/core/operation.ts).
    ...(route.auth === 'credential' && route.operation?.emits.length ? { 'x-webhook-events': route.operation.emits } : {}),
    ...(route.auth === 'credential'
      ? { security: [{ bearer: [] }] }
      : route.auth === 'platform'
        ? { security: [{ platformOperator: [] }] }
        : route.optionalCredential
          ? { security: [{ bearer: [] }, {}] }
          : { security: [] }),
    ...(Object.keys(requestParams).length ? { requestParams } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: route.bodyFormat === 'form'
              ? { 'application/x-www-form-urlencoded': { schema: route.body }, 'application/json': { schema: route.body } }
              : { 'application/json': { schema: route.body } },
          },
        }
      : {}),
    responses: responses as ZodOpenApiResponsesObject,
  };
}

/**
 * A stable, unique operation id from method and path: literal segments in camel case, each
 * parameter as `By<Name>`: `POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim` →
 * `postBoardsByBoardIdTicketsByTicketIdClaim`.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1\//, '/')
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `By${capitalize(segment.slice(1, -1))}` : segment.split(/[-.]/).map(capitalize).join('')));
  return method.toLowerCase() + words.join('');
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** A route's path or query schema as the object it is (one built on first use, `z.lazy`, unwrapped): each field is a parameter. */
function objectOf(schema: z.ZodType): z.ZodObject {
  return (schema instanceof z.ZodLazy ? schema.unwrap() : schema) as z.ZodObject;
}
