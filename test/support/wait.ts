/**
 * Reads until `done` holds or the time is up, and answers the last value read (the caller's
 * assertion then says what was wrong): for outcomes that arrive through the stream and the
 * queue, whose timing a test does not control. The pauses between reads grow from 100 ms to a
 * second (`pollPause`): a test that waits long, while the shared stream consumer works through
 * other files' events, does not take DynamoDB Local's time from the work it waits for.
 */
export async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  for (let attempt = 0; !done(value) && Date.now() < deadline; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, pollPause(attempt)));
    value = await read();
  }
  return value;
}

/** The pause before the next read of a wait: 100 ms, growing by half each time, at most a second. */
export const pollPause = (attempt: number): number => Math.min(1_000, Math.round(100 * 1.5 ** attempt));
