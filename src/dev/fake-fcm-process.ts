/**
 * The fake FCM (./fake-fcm.ts) in a process of its own, so a benchmark's sender and the fake do not share a core:
 *
 *   node src/dev/fake-fcm-process.ts --cert-file cert.pem --key-file key.pem \
 *     [--host 127.0.0.1] [--port 0] [--delay-ms 0] [--project-id richpush-test] [--public-key-file key.pub]
 *
 * Once listening it prints one JSON line on stdout, `{"baseUrl": …, "tokenUri": …}`, and nothing else. The caller
 * reads the counts from `GET {baseUrl}/_stats` (FakeFcmStats as JSON; firstAcceptAt and lastAcceptAt are absent until
 * a send was accepted), starts them afresh with `POST {baseUrl}/_reset`, and stops the process with SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startFakeFcm } from './fake-fcm.ts';

const { values } = parseArgs({
  options: {
    'cert-file': { type: 'string' },
    'key-file': { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '0' },
    'delay-ms': { type: 'string', default: '0' },
    'project-id': { type: 'string', default: 'richpush-test' },
    'public-key-file': { type: 'string' },
  },
});

function wholeNumber(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`fake-fcm: --${name} must be a whole number >= 0, got "${text}"`);
  return value;
}

const certFile = values['cert-file'];
const keyFile = values['key-file'];
if (!certFile || !keyFile) throw new Error('fake-fcm: --cert-file and --key-file (PEM) are required: the fake serves HTTPS only');

const fake = await startFakeFcm({
  cert: readFileSync(certFile, 'utf8'),
  key: readFileSync(keyFile, 'utf8'),
  host: values.host,
  port: wholeNumber('port', values.port),
  delayMs: wholeNumber('delay-ms', values['delay-ms']),
  projectId: values['project-id'],
  ...(values['public-key-file'] ? { publicKey: readFileSync(values['public-key-file'], 'utf8') } : {}),
});
process.stdout.write(`${JSON.stringify({ baseUrl: fake.baseUrl, tokenUri: fake.tokenUri })}\n`);

const stop = () => void fake.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
