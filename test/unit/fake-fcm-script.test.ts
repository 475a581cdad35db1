import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFakeFcmScript, scriptedAnswers, watchFakeFcmScript } from '../../src/dev/fake-fcm-script.ts';
import type { FakeFcmScript, FakeFcmSend } from '../../src/dev/fake-fcm.ts';
import type { Logger } from '../../src/logger.ts';
import { until } from '../support/wait.ts';

// The script of `npm start`'s fake FCM (DATA_DIR/fake-fcm.json): what each rule answers, and the file read and re-read.

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const scriptFile = async (contents: string) => {
  const dir = await mkdtemp(join(tmpdir(), 'rp-fcm-script-'));
  dirs.push(dir);
  const file = join(dir, 'fake-fcm.json');
  await writeFile(file, contents);
  return file;
};

let index = 0;
const sendTo = (token: string): FakeFcmSend => ({ token, index: index++, receivedAt: Date.now(), message: { token } });
const statusOf = (script: FakeFcmScript, token: string) => script(sendTo(token))?.status ?? 200;

describe("the fake FCM's script", () => {
  it('answers with the first rule that matches the token, each rule for its first `times` sends to a token', () => {
    const script = scriptedAnswers({
      rules: [
        { tokens: 'gone-*', answer: 'unregistered' },
        { tokens: 'busy-1', answer: 'quota', times: 2, retryAfterSeconds: 5 },
        { answer: 'internal', times: 1 },
      ],
    });
    expect(statusOf(script, 'gone-1')).toBe(404);
    expect(script(sendTo('gone-2'))?.body).toContain('UNREGISTERED');
    expect(script(sendTo('busy-1'))).toMatchObject({ status: 429, headers: { 'retry-after': '5' } });
    expect(statusOf(script, 'busy-1')).toBe(429);
    // busy-1's two are spent: the rule for every token answers its first send, then nothing is scripted.
    expect(statusOf(script, 'busy-1')).toBe(500);
    expect(statusOf(script, 'busy-1')).toBe(200);
    expect(statusOf(script, 'busy-2')).toBe(500);
    expect(statusOf(script, 'other')).toBe(500);
    expect(statusOf(script, 'other')).toBe(200);
  });

  it('delays an answer as scripted, 200 unless an answer is named', () => {
    const script = scriptedAnswers({ rules: [{ tokens: 'slow-*', answer: 'ok', delayMs: 1500 }] });
    expect(script(sendTo('slow-1'))).toEqual({ status: 200, delayMs: 1500 });
    expect(script(sendTo('fast-1'))).toBeUndefined();
  });

  it('is none without a file, and says what is wrong with a bad one', async () => {
    expect(await readFakeFcmScript(join(tmpdir(), 'rp-no-such-dir', 'fake-fcm.json'))).toBeUndefined();
    const notJson = await scriptFile('{ rules: ');
    await expect(readFakeFcmScript(notJson)).rejects.toThrow(new RegExp(`^${notJson} is not JSON`));
    const wrong = await scriptFile(JSON.stringify({ rules: [{ tokens: 'a*', answer: 'teapot', times: 0 }] }));
    await expect(readFakeFcmScript(wrong)).rejects.toThrow(/is not a fake FCM script:[\s\S]*rules\[0\]\.answer[\s\S]*rules\[0\]\.times/);
  });

  it('is read again when the file changes, and a bad change keeps the script before it', { timeout: 20_000 }, async () => {
    const file = await scriptFile(JSON.stringify({ rules: [] }));
    const applied: Array<FakeFcmScript | undefined> = [];
    const refused: unknown[] = [];
    const logger = { info: () => {}, error: (fields: { err: unknown }) => refused.push(fields.err) } as unknown as Logger;
    const stop = watchFakeFcmScript(file, (script) => applied.push(script), logger);
    try {
      await writeFile(file, JSON.stringify({ rules: [{ answer: 'unavailable' }] }));
      await until('the changed script to be applied', () => applied.length === 1);
      expect(statusOf(applied[0]!, 'any')).toBe(503);
      await writeFile(file, '{ not json');
      await until('the bad change to be refused', () => refused.length === 1);
      expect(applied).toHaveLength(1);
      await writeFile(file, JSON.stringify({ rules: [{ answer: 'invalid' }] }));
      await until('the next good script to be applied', () => applied.length === 2);
      expect(statusOf(applied[1]!, 'any')).toBe(400);
    } finally {
      stop();
    }
  });
});
