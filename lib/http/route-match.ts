import { AppError } from '../core/errors.js';

/**
 * Route keys in API Gateway syntax (`METHOD /path/{param}`) matched the way API Gateway
 * matches them: segment by segment, literal segments preferred over parameters from the
 * left. Used by the local runtime (to play API Gateway) and by the `$default` route (to tell
 * an unknown path, 404, from a known path asked with the wrong method, 405 with `Allow`).
 */
export interface CompiledRoute {
  routeKey: string;
  method: string;
  segments: string[];
}

export interface RouteMatch {
  routeKey: string;
  params: Record<string, string>;
}

/** `$default` and the like: route keys that are not `METHOD /path`. */
export const isPathRoute = (routeKey: string): boolean => /^[A-Z]+ \//.test(routeKey);

export function compileRoutes(routeKeys: readonly string[]): CompiledRoute[] {
  return routeKeys.filter(isPathRoute).map((routeKey) => {
    const [method, path] = routeKey.split(' ') as [string, string];
    return { routeKey, method, segments: path.split('/').filter(Boolean) };
  });
}

/** 400 for a path whose percent-encoding cannot be decoded (e.g. `%E0%A4%A`). */
export const malformedPath = (): AppError =>
  new AppError('VALIDATION_ERROR', 'The path is not valid percent-encoded UTF-8', { issues: [{ path: 'path', message: 'Malformed percent-encoding' }] });

/** The decoded segments of a raw path, or undefined when its percent-encoding is malformed. */
export function pathSegments(rawPath: string): string[] | undefined {
  try {
    return rawPath.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/** The route a method and (decoded) path segments select, with its path parameters. */
export function matchRoute(routes: CompiledRoute[], method: string, segments: string[]): RouteMatch | undefined {
  let best: (RouteMatch & { literalMask: string }) | undefined;
  for (const route of routes) {
    if (route.method !== method || route.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let literalMask = '';
    let ok = true;
    route.segments.forEach((segment, index) => {
      const value = segments[index]!;
      if (segment.startsWith('{') && segment.endsWith('}')) {
        params[segment.slice(1, -1)] = value;
        literalMask += '0';
      } else if (segment === value) {
        literalMask += '1';
      } else {
        ok = false;
      }
    });
    // API Gateway prefers the route whose earliest segments are literal.
    if (ok && (!best || literalMask > best.literalMask)) best = { routeKey: route.routeKey, params, literalMask };
  }
  return best && { routeKey: best.routeKey, params: best.params };
}

/** The methods some route serves at this path (for 405's `Allow`), sorted. */
export function allowedMethods(routes: CompiledRoute[], segments: string[]): string[] {
  const methods = new Set<string>();
  for (const method of new Set(routes.map((route) => route.method))) {
    if (matchRoute(routes, method, segments)) methods.add(method);
  }
  return [...methods].sort();
}
