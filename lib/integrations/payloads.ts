import * as z from 'zod';
import { validationError } from '../core/errors.js';
import type { PipelineStatus } from '../db/entities/index.js';

/*
 * The fields of the providers' hook payloads this service reads, and only those: anything else
 * a payload carries is ignored (`looseObject`), a missing or mistyped field read here is a 400.
 */
const repository = z.looseObject({ full_name: z.string().min(1) });
const githubPullRequest = z.looseObject({
  number: z.number().int().positive(),
  title: z.string(),
  html_url: z.string(),
  state: z.enum(['open', 'closed']),
  merged: z.boolean().nullish(),
  head: z.looseObject({ ref: z.string() }),
  user: z.looseObject({ login: z.string() }),
});
const prNumbers = z.array(z.looseObject({ number: z.number().int().positive() })).default([]);

export const githubPayloads = {
  pull_request: z.looseObject({ pull_request: githubPullRequest, repository }),
  pull_request_review: z.looseObject({ review: z.looseObject({ state: z.string() }), pull_request: githubPullRequest, repository }),
  check_suite: z.looseObject({
    check_suite: z.looseObject({
      id: z.number().int(),
      head_branch: z.string().nullish(),
      status: z.string().nullish(),
      conclusion: z.string().nullish(),
      url: z.string().nullish(),
      pull_requests: prNumbers,
    }),
    repository,
  }),
  workflow_run: z.looseObject({
    workflow_run: z.looseObject({
      id: z.number().int(),
      head_branch: z.string().nullish(),
      status: z.string().nullish(),
      conclusion: z.string().nullish(),
      html_url: z.string().nullish(),
      pull_requests: prNumbers,
    }),
    repository,
  }),
  ping: z.looseObject({}),
};
export type GithubEvent = keyof typeof githubPayloads;

const project = z.looseObject({ path_with_namespace: z.string().min(1), web_url: z.string().nullish() });
export const gitlabPayloads = {
  'Merge Request Hook': z.looseObject({
    user: z.looseObject({ username: z.string() }),
    project,
    object_attributes: z.looseObject({
      iid: z.number().int().positive(),
      title: z.string(),
      url: z.string(),
      state: z.enum(['opened', 'closed', 'merged', 'locked']),
      source_branch: z.string(),
      action: z.string().nullish(),
    }),
  }),
  'Pipeline Hook': z.looseObject({
    project,
    object_attributes: z.looseObject({ id: z.number().int(), ref: z.string().nullish(), status: z.string(), url: z.string().nullish() }),
    merge_request: z.looseObject({ iid: z.number().int().positive() }).nullish(),
  }),
};
export type GitlabEvent = keyof typeof gitlabPayloads;

/** Parses a payload the signature admitted: JSON, with the fields read; else 400 naming them. */
export function parsePayload<T>(schema: z.ZodType<T>, bodyText: string): T {
  let value: unknown;
  try {
    value = JSON.parse(bodyText);
  } catch {
    throw validationError([{ path: 'body', message: 'The body is not JSON' }]);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || 'body', message: issue.message })));
}

/** A GitHub check suite's or workflow run's status and conclusion as a pipeline status. */
export function githubRunStatus(status: string | null | undefined, conclusion: string | null | undefined): PipelineStatus {
  if (status !== 'completed') return status === 'in_progress' ? 'running' : 'pending';
  switch (conclusion) {
    case 'success':
      return 'success';
    case 'cancelled':
      return 'canceled';
    case 'neutral':
    case 'skipped':
    case 'stale':
      return 'skipped';
    default:
      return 'failed';
  }
}

/** A GitLab pipeline status as a pipeline status. */
export function gitlabPipelineStatus(status: string): PipelineStatus {
  switch (status) {
    case 'running':
      return 'running';
    case 'success':
      return 'success';
    case 'failed':
      return 'failed';
    case 'canceled':
    case 'canceling':
      return 'canceled';
    case 'skipped':
      return 'skipped';
    default:
      return 'pending';
  }
}
