/** Request bodies shaped like the spec's samples. Free of vitest, so the benches use them too. */

/**
 * The message body from the spec's sample request. Its `filterId` must name a segment of the app (else 422
 * `unknown_segment`), so it is sent only when given.
 */
export const sampleMessage = (appId: string, filterId?: string) => ({
  appId,
  title: 'Weekend sale',
  subtitle: 'Up to 50% off',
  text: 'Tap to hear the announcement',
  action: 'Open',
  fbTitle: 'Weekend sale',
  fbSubtitle: 'Up to 50% off',
  fbText: 'Open the app to see the offers',
  expiry: 1440,
  playTime: 1_795_000_000_000,
  about: [],
  ...(filterId === undefined ? {} : { filterId }),
  priority: 'LOW',
  favourite: 0,
  type: 'RICHPUSH',
  channel: 'PUSH',
});

/**
 * URLs an outbound URL check (endpoints, connections' outboundUrl) must refuse, with the reason it gives. Each is
 * outside the test allow list (127.0.0.0/8, ::1/128).
 */
export const rejectedUrls: Array<[string, RegExp]> = [
  ['http://localhost/hooks', /https/],
  ['https://user:pass@example.com/', /credentials/],
  ['https://10.0.0.1/', /10\.0\.0\.1.*private/],
  ['https://169.254.169.254/latest', /link-local/],
  ['https://0x0a000001/', /10\.0\.0\.1.*private/],
  ['https://3232235777/', /192\.168\.1\.1.*private/],
  ['https://[fe80::1]/', /link-local/],
  ['https://[::ffff:10.0.0.1]/', /10\.0\.0\.1.*private/],
  ['https://does-not-exist.invalid/', /does not resolve/],
];
