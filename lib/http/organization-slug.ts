import { config } from '../core/config.js';

/**
 * The organization a request addresses (README.md, Configuration): the first label of the Host under
 * the base domain (`acme.api.example.com` → `acme`), else the `X-Organization` header.
 */
export function organizationSlugOf(headers: Record<string, string | undefined>): string | null {
  const subdomain = subdomainSlugOf(headers);
  if (subdomain) return subdomain;
  const header = headers['x-organization']?.trim().toLowerCase();
  return header || null;
}

/** The organization named by the Host's first label under the base domain, or null. */
export function subdomainSlugOf(headers: Record<string, string | undefined>): string | null {
  const host = (headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  const base = config().baseDomain;
  if (base && host.endsWith(`.${base}`)) {
    const label = host.slice(0, -(base.length + 1));
    if (label && !label.includes('.')) return label;
  }
  return null;
}

/**
 * The organization a request addresses, or, when it names none, the local runtime's default
 * organization (DEFAULT_ORGANIZATION, lib/core/config.ts): for what needs an organization and has
 * no credential to take it from (sign-in, OAuth discovery and endpoints, the 401 that points to the
 * resource metadata). A credential is still read for the organization it belongs to.
 */
export function addressedSlugOf(headers: Record<string, string | undefined>): string | null {
  return organizationSlugOf(headers) ?? config().defaultOrganization ?? null;
}
