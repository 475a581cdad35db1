import { unwatchFile, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Logger } from '../logger.ts';
import { fcmErrorReply, quotaExceeded, unavailable, unregistered, type FakeFcmReply, type FakeFcmScript } from './fake-fcm.ts';

// The answers of `npm start`'s fake FCM (PUSH_PROVIDER=fake-fcm), scripted by a small JSON file, so that failed,
// unregistered, retried and slow pushes can be seen on a laptop. docs/campaigns.md, "Failures on your machine".

/** What the fake answers a send with, as FCM would: */
const answers = {
  /** 200 with a message name: sent. */
  ok: (): FakeFcmReply => ({ status: 200 }),
  /** 404 UNREGISTERED: the app was uninstalled; the service unsubscribes the device. */
  unregistered,
  /** 429 QUOTA_EXCEEDED: retried, after Retry-After (which pauses every send of the project) when given. */
  quota: (retryAfterSeconds?: number) => quotaExceeded(retryAfterSeconds),
  /** 503 UNAVAILABLE: retried, after Retry-After when given. */
  unavailable: (retryAfterSeconds?: number) => withRetryAfter(unavailable(), retryAfterSeconds),
  /** 500 INTERNAL: retried. */
  internal: () => fcmErrorReply(500, 'INTERNAL', 'Internal error encountered.', 'INTERNAL'),
  /** 400 INVALID_ARGUMENT: not retried; the push fails. */
  invalid: () => fcmErrorReply(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT'),
} satisfies Record<string, (retryAfterSeconds?: number) => FakeFcmReply>;

const withRetryAfter = (reply: FakeFcmReply, seconds: number | undefined): FakeFcmReply =>
  seconds === undefined ? reply : { ...reply, headers: { ...reply.headers, 'retry-after': String(seconds) } };

const ruleSchema = z.strictObject({
  /** The device tokens it applies to: one token, or a prefix ending in `*`; every token when left out. */
  tokens: z.string().min(1).optional(),
  answer: z.enum(Object.keys(answers) as [keyof typeof answers, ...Array<keyof typeof answers>]).default('ok'),
  /** Only the first `times` sends to each matching token; then the next rule that matches (or 200) answers. */
  times: z.number().int().min(1).optional(),
  /** With `quota` or `unavailable`: the Retry-After header, in seconds. */
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  /** Waits this long before answering: a slow FCM (the service gives a request FCM's own timeout). */
  delayMs: z.number().int().min(0).max(60_000).optional(),
});

/** The file: `{ "rules": [...] }`, the first rule that matches a send answering it. */
export const fakeFcmScriptSchema = z.strictObject({ rules: z.array(ruleSchema).max(100) });
export type FakeFcmScriptFile = z.infer<typeof fakeFcmScriptSchema>;

const matches = (pattern: string | undefined, token: string) =>
  pattern === undefined || (pattern.endsWith('*') ? token.startsWith(pattern.slice(0, -1)) : token === pattern);

/** The fake's answer function for a script; it counts each rule's sends per token for `times`. */
export function scriptedAnswers(script: FakeFcmScriptFile): FakeFcmScript {
  const counts = script.rules.map(() => new Map<string, number>());
  return (send) => {
    for (const [index, rule] of script.rules.entries()) {
      if (!matches(rule.tokens, send.token)) continue;
      if (rule.times !== undefined) {
        const seen = counts[index]!.get(send.token) ?? 0;
        if (seen >= rule.times) continue;
        counts[index]!.set(send.token, seen + 1);
      }
      const reply = answers[rule.answer](rule.retryAfterSeconds);
      return rule.delayMs === undefined ? reply : { ...reply, delayMs: rule.delayMs };
    }
    return undefined;
  };
}

/** The script in `file`, parsed; `undefined` when there is no file (every send answers 200). Throws saying what is wrong. */
export async function readFakeFcmScript(file: string): Promise<FakeFcmScript | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = fakeFcmScriptSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a fake FCM script:\n${z.prettifyError(parsed.error)}`);
  return scriptedAnswers(parsed.data);
}

/**
 * Reads the script again whenever the file changes (polled each 500 ms: editors replace files rather than write
 * them) and hands it to `apply`; a file that does not parse is logged and the script before it stays.
 */
export function watchFakeFcmScript(file: string, apply: (script: FakeFcmScript | undefined) => void, logger: Logger): () => void {
  const reload = () =>
    void readFakeFcmScript(file).then(
      (script) => {
        apply(script);
        logger.info({ file }, script ? 'fake FCM: script loaded' : 'fake FCM: no script, every send answers 200');
      },
      (error: unknown) => logger.error({ err: error }, 'fake FCM: the script was not changed'),
    );
  watchFile(file, { interval: 500 }, (now, before) => {
    if (now.mtimeMs !== before.mtimeMs) reload();
  });
  return () => unwatchFile(file);
}
