/** Public face of the OAuth authorization server for other domains: they reach it only through this file. */
export { type OAuthScope, resourceMetadataUrl } from './discovery.js';
