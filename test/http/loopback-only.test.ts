import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, inject, it } from 'vitest';

/*
 * The local runtime listens on loopback unless HOST says otherwise: the API and the local SQS
 * (which takes webhook deliveries) answer on 127.0.0.1 and refuse a connection to this machine's
 * other addresses. DynamoDB Local, whose jar has no option for it, is the documented exception
 * (README, "Configuration").
 */
const outward = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

/** Whether a TCP connection to host:port is accepted (true) or refused (false). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' ? resolve(false) : reject(error)));
  });
}

describe('the local runtime', () => {
  it.skipIf(!outward)('refuses connections on any address but loopback: the API and the local SQS', async () => {
    const api = Number(new URL(inject('baseUrl')).port);
    const sqs = Number(new URL(inject('runtimeEnv').SQS_ENDPOINT!).port);
    expect([await accepts('127.0.0.1', api), await accepts('127.0.0.1', sqs)]).toEqual([true, true]);
    expect([await accepts(outward!, api), await accepts(outward!, sqs)]).toEqual([false, false]);
  });
});
