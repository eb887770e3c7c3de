import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/server';
import { registerAppResource, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';

/**
 * The MCP Apps views this server offers (extension `io.modelcontextprotocol/ui`; docs/console.md,
 * "The inbox inside AI clients"). A tool names its view in `_meta.ui.resourceUri`; a client with
 * the extension reads the view (one HTML document, its script inline) and renders it in a
 * sandboxed frame, where it talks to this server only through the host (`tools/call`), so every
 * action goes through the same tools, checks and domain operations as anywhere. A client without
 * the extension shows the tool's ordinary result.
 */
export const INBOX_APP_URI = 'ui://work-management/inbox.html';

/**
 * The view's HTML is built with the console (web/build.ts, `mcp-app/inbox.html` of its output);
 * deployed, the `mcp` function carries that folder as `console` beside its bundle (infra/route-table.ts).
 */
const builtFile = (name: string): string =>
  process.env.LAMBDA_TASK_ROOT
    ? path.join(process.env.LAMBDA_TASK_ROOT, 'console', 'mcp-app', name)
    : fileURLToPath(new URL(`../../web/dist/mcp-app/${name}`, import.meta.url));

let inboxHtml: Promise<string> | undefined;

export function registerApps(server: McpServer): void {
  registerAppResource(
    server,
    'Inbox',
    INBOX_APP_URI,
    {
      description: "What waits for you: agents' suggested moves and time, with Approve and Reject.",
      // No other origin: the view fetches nothing itself, and draws with its own inline style.
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
    },
    async () => {
      inboxHtml ??= readFile(builtFile('inbox.html'), 'utf8');
      return { contents: [{ uri: INBOX_APP_URI, mimeType: RESOURCE_MIME_TYPE, text: await inboxHtml }] };
    },
  );
}
