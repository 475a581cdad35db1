import { generate } from 'selfsigned';

/**
 * A self-signed certificate for `localhost`, 127.0.0.1 and ::1, made once per run: the tests' and benches' receivers
 * and `npm start`'s fake FCM serve it, and the client that calls them is told to trust it.
 */
export async function generateLocalCertificate(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 2 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
