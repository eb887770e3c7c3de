/**
 * Reads until `done` holds or the time is up, and answers the last value read (the caller's
 * assertion then says what was wrong): for outcomes that arrive through the stream and the
 * queue, whose timing a test does not control.
 */
export async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}
