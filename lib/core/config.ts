/**
 * Runtime configuration, read from the environment once per container. The CDK stack
 * and the local runtime set the same variable names (see README, "Configuration").
 */
export interface Config {
  tableName: string;
  baseDomain: string;
  /** Secret for HS256 session JWTs. */
  jwtSecret: Uint8Array;
  /** SHA-256 (hex) of the platform operator's bearer token; the token itself is never stored. */
  platformAdminTokenSha256: string | undefined;
  signupEnabled: boolean;
  sessionTtlSeconds: number;
  webhookQueueUrl: string | undefined;
}

let cached: Config | undefined;

export function config(): Config {
  if (cached) return cached;
  const env = process.env;
  const jwtSecret = env.JWT_SECRET;
  if (!jwtSecret || jwtSecret.length < 32) throw new Error('JWT_SECRET must be set (32+ characters)');
  cached = {
    tableName: required('TABLE_NAME'),
    baseDomain: (env.BASE_DOMAIN ?? 'localhost').toLowerCase(),
    jwtSecret: new TextEncoder().encode(jwtSecret),
    platformAdminTokenSha256: env.PLATFORM_ADMIN_TOKEN_SHA256 || undefined,
    signupEnabled: env.SIGNUP_ENABLED !== 'false',
    sessionTtlSeconds: Number(env.SESSION_TTL_SECONDS ?? 12 * 3600),
    webhookQueueUrl: env.WEBHOOK_QUEUE_URL || undefined,
  };
  return cached;
}

/** Tests and the local runtime change the environment between runs. */
export function resetConfig(): void {
  cached = undefined;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}
