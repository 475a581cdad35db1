import { setTimeout as sleep } from 'node:timers/promises';

// How a test waits for something that happens in the background: poll until it holds, or fail after a time limit
// with a message that names what was awaited (and, where there is one, what was last seen instead). A number given as
// the options is the timeout.

export interface WaitOptions {
  /** How long to keep trying, in ms (15 000 by default). A try still running then is given up on: the wait fails. */
  timeoutMs?: number;
  /** The pause between two tries, in ms (100 by default). */
  intervalMs?: number;
}

export interface ReadOptions<T> extends WaitOptions {
  /** What to print of the last value read when the time is up (the value itself by default, as JSON). */
  show?: (last: T) => unknown;
}

type Awaitable<T> = T | Promise<T>;

/**
 * Reads a value until `done` holds on it, and returns that value. On timeout it fails with
 * `timed out after <timeoutMs> ms waiting for <what>; last seen: <the last value read>`.
 * `read` gets a signal that aborts when the time is up, for a long poll to pass on.
 */
export function until<T>(what: string, read: (signal: AbortSignal) => Awaitable<T>, done: (value: T) => boolean, options?: number | ReadOptions<T>): Promise<T>;
/**
 * Calls `check` until it returns something other than `undefined` or `false`, and returns that. On timeout it fails
 * with `timed out after <timeoutMs> ms waiting for <what>`.
 */
export function until<T>(what: string, check: (signal: AbortSignal) => Awaitable<T | undefined | false>, options?: number | WaitOptions): Promise<T>;
export async function until<T>(
  what: string,
  read: (signal: AbortSignal) => Awaitable<unknown>,
  doneOrOptions?: ((value: T) => boolean) | number | ReadOptions<T>,
  readOptions?: number | ReadOptions<T>,
): Promise<T> {
  const reading = typeof doneOrOptions === 'function';
  const done = reading ? doneOrOptions : (value: unknown) => value !== undefined && value !== false;
  const given = reading ? readOptions : doneOrOptions;
  const { timeoutMs = 15_000, intervalMs = 100, show } = typeof given === 'number' ? { timeoutMs: given } : (given ?? {});

  let last: { value: T } | undefined;
  const controller = new AbortController();
  const timedOut = Promise.withResolvers<never>();
  // Raced against every try and pause; this only keeps a rejection between two races from counting as unhandled.
  timedOut.promise.catch(() => undefined);
  const timer = setTimeout(() => {
    const seen = reading && last ? `; last seen: ${describe(last.value, show)}` : '';
    timedOut.reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`));
    controller.abort();
  }, timeoutMs);
  try {
    for (;;) {
      const value = (await Promise.race([read(controller.signal), timedOut.promise])) as T;
      if (done(value)) return value;
      last = { value };
      await Promise.race([sleep(intervalMs, undefined, { signal: controller.signal }), timedOut.promise]);
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

function describe<T>(value: T, show: ((last: T) => unknown) | undefined): string {
  try {
    const shown = show ? show(value) : value;
    return typeof shown === 'string' ? shown : (JSON.stringify(shown) ?? String(shown));
  } catch (error) {
    return `(cannot be shown: ${String(error)})`;
  }
}
