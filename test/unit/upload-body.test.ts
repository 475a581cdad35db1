import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { readHead, withHead } from '../../src/domain/files/upload-body.ts';

/** A body that arrives in `chunks`, as a request's does, and ends after them unless told to stay open. */
function bodyOf(chunks: string[], { end = true } = {}) {
  const body = new PassThrough();
  for (const chunk of chunks) body.write(chunk);
  if (end) body.end();
  return body;
}

describe('an upload body read for its head', () => {
  it('answers at least the head, and streams the whole body again, head first', async () => {
    const body = bodyOf(['abc', 'def', 'ghi', 'jkl']);
    const { head, ended } = await readHead(body, 5);
    expect(head.length).toBeGreaterThanOrEqual(5);
    expect(ended).toBe(false);
    expect(await text(withHead(head, body, ended))).toBe('abcdefghijkl');
  });

  it('answers a body shorter than the head whole, and streams it again', async () => {
    const body = bodyOf(['ab', 'c']);
    const { head, ended } = await readHead(body, 64);
    expect({ head: head.toString(), ended }).toEqual({ head: 'abc', ended: true });
    expect(await text(withHead(head, body, ended))).toBe('abc');
  });

  it('streams the rest as it arrives after the head was read', async () => {
    const body = bodyOf(['abcdef'], { end: false });
    const { head, ended } = await readHead(body, 4);
    const whole = text(withHead(head, body, ended));
    body.end('ghi');
    expect(await whole).toBe('abcdefghi');
  });

  it('fails when the body closes before its end (a client that hung up)', async () => {
    const body = bodyOf(['ab'], { end: false });
    const reading = readHead(body, 64);
    body.destroy();
    await expect(reading).rejects.toThrow(/closed before its end/);
  });
});
