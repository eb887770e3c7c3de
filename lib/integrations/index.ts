/** Public face of the Git integrations for other domains: they reach it only through this file. */
export { presentPullRequest, pullRequestsOfTicket } from './pull-requests.js';
export { pullRequestResult } from './shapes.js';
