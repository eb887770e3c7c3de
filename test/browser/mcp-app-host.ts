/**
 * Browser code (type-checked with web/, which has the DOM): a minimal MCP Apps host for the browser tests (test/console/mcp-app-view.test.ts), bundled by
 * esbuild into the test's page: it frames a view (sandboxed, as hosts do), answers its
 * handshake through the extension's own AppBridge, forwards the view's `tools/call` to the test
 * (which sends it to the server with the official MCP client), and hands the view the result of
 * the tool that opened it.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

declare global {
  interface Window {
    /** Exposed by the test: one tools/call on the server, as the signed-in person. */
    hostCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
    openView(html: string, tool: string): Promise<void>;
  }
}

window.openView = async (html: string, tool: string) => {
  const frame = document.createElement('iframe');
  frame.title = 'MCP App';
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.width = '100%';
  frame.style.height = '600px';
  frame.srcdoc = html;
  document.body.append(frame);
  const bridge = new AppBridge(null, { name: 'Test host', version: '1.0.0' }, { serverTools: {} });
  bridge.oncalltool = async (params) => (await window.hostCallTool(params as never)) as never;
  bridge.oninitialized = () => {
    void window.hostCallTool({ name: tool, arguments: {} }).then((result: Record<string, unknown>) => bridge.sendToolResult(result as never));
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
};
