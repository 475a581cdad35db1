import { Readable } from 'node:stream';

/**
 * The first `bytes` or more of `body` (all of it when it ends sooner: `ended`), read without reading much further:
 * the rest stays in the stream, paused, for `withHead` to stream on after the head.
 */
export function readHead(body: Readable, bytes: number): Promise<{ head: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const settle = (outcome: () => void) => {
      body.off('readable', onReadable);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      outcome();
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while (length < bytes && (chunk = body.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        length += chunk.length;
      }
      if (length >= bytes) settle(() => resolve({ head: Buffer.concat(chunks), ended: false }));
    };
    const onEnd = () => settle(() => resolve({ head: Buffer.concat(chunks), ended: true }));
    const onError = (error: Error) => settle(() => reject(error));
    // A client that hangs up mid-body: the request closes without an end.
    const onClose = () => settle(() => reject(new Error('the body closed before its end')));
    body.on('readable', onReadable);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/**
 * The whole body again, its head first: `body` itself with the head put back at its front, so that the bytes pass
 * through no extra stream on their way to storage. A body that has ended (the head is all of it, seen by readHead or
 * since) cannot take it back, and is replaced by one of the head alone. The caller reads it as `body`, watching it for
 * errors and early closes.
 */
export function withHead(head: Buffer, body: Readable, ended: boolean): Readable {
  if (ended || body.readableEnded) return Readable.from([head], { objectMode: false });
  body.unshift(head);
  return body;
}
