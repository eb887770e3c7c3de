import { startLocalRuntime } from './runtime.js';

/** `npm start`: the whole service on this machine, on its embedded defaults. */
async function main(): Promise<void> {
  const env = process.env;
  // Trying one MCP client after another registers each: locally 100 an hour per address (deployed: 5).
  env.OAUTH_REGISTRATIONS_PER_HOUR ??= '100';
  const runtime = await startLocalRuntime({
    port: Number(env.PORT ?? 3000),
    host: env.HOST || undefined,
    baseDomain: env.BASE_DOMAIN,
    platformAdminToken: env.PLATFORM_ADMIN_TOKEN || undefined,
    dataDir: env.DATA_DIR || undefined,
    dynamoEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    sqsEndpoint: env.SQS_ENDPOINT || undefined,
    // http://localhost:PORT/api/v1/mcp (and sign-in, OAuth) reach this organization with no header: the walkthrough's.
    defaultOrganization: env.DEFAULT_ORGANIZATION ?? 'acme',
    sweeperIntervalSeconds: env.SWEEPER_INTERVAL_SECONDS ? Number(env.SWEEPER_INTERVAL_SECONDS) : undefined,
    // Invitations and password resets: their links are printed here, and kept in the outbox.
    printMail: true,
  });
  const base = runtime.baseUrl;
  console.log(`
Work-management service is running.

  Base URL:                ${base}   (organizations: <slug>.${env.BASE_DOMAIN ?? 'localhost'} or header X-Organization: <slug>)
  Console:                 ${base}/app${runtime.defaultOrganization ? `   (organization '${runtime.defaultOrganization}'; another: ${base}/app?org=<slug>)` : '?org=<slug>'}
  MCP server:              ${base}/api/v1/mcp${runtime.defaultOrganization ? `   (organization '${runtime.defaultOrganization}' with no header: DEFAULT_ORGANIZATION)` : ''}
  API reference:           ${base}/docs   (OpenAPI document: ${base}/api/v1/openapi.json)
  Health:                  ${base}/healthz
  Platform operator token: ${runtime.platformAdminToken}
  Mail:                    not sent: printed here, and kept in the console's Outbox (${base}/app/outbox)
  Listening on:            ${runtime.host}:${runtime.port}${runtime.host === '127.0.0.1' ? ' (this machine only; HOST=0.0.0.0 for every interface)' : ''}
  DynamoDB Local:          ${runtime.dynamoEndpoint}${env.DATA_DIR ? ` (data in ${env.DATA_DIR})` : ' (in memory)'}
  Local SQS:               ${runtime.sqsEndpoint}

In the shell where you paste the README's blocks, first:

  export PORT=${runtime.port} PLATFORM_TOKEN=${runtime.platformAdminToken}

Sign up:
  curl -s -X POST ${base}/api/v1/auth/signup -H 'content-type: application/json' \\
    -d '{"organizationName":"Acme","slug":"acme","name":"Ada","email":"ada@acme.test","password":"correct horse battery"}'

Press Ctrl-C to stop.
`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: shutting down…`);
    await runtime.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
