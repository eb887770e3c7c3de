import { defineJob, type Job } from '../events/index.js';
import { purgeWiki, WIKI_PURGE_JOB } from './purge.js';
import { runWikiSearchIndexJob, WIKI_SEARCH_INDEX_JOB } from './search-index.js';

/** The background jobs of the wiki (lib/events/jobs.ts): deleted content purged, a page's words indexed. */
export const wikiJobs: readonly Job[] = [defineJob(WIKI_PURGE_JOB, purgeWiki), defineJob(WIKI_SEARCH_INDEX_JOB, runWikiSearchIndexJob)];
