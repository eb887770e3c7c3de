import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received (signatures are checked over it). */
  body: string;
  receivedAt: number;
  /** The status the receiver answered. */
  status: number;
}

export type Responder = (request: Omit<ReceivedRequest, 'status'>, countOnPath: number) => { status: number; headers?: Record<string, string>; body?: string };

/**
 * A real webhook receiver on 127.0.0.1: records every request (headers, raw body, time, the
 * status it answered) and answers per path as the test says (200 unless told).
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly responders = new Map<string, Responder>();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const request = { path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        const count = this.requests.filter((seen) => seen.path === path).length + 1;
        const answer = this.responders.get(path)?.(request, count) ?? { status: 200 };
        this.requests.push({ ...request, status: answer.status });
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return this;
  }

  /** How requests to `path` are answered. */
  respond(path: string, responder: Responder): void {
    this.responders.set(path, responder);
  }

  on(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Waits until `path` has received at least `count` requests; returns them. */
  async waitFor(path: string, count = 1, timeoutMs = 15_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const seen = this.on(path);
      if (seen.length >= count) return seen;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`expected ${count} request(s) on ${path}, received ${this.on(path).length}`);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
