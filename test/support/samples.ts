/** Request bodies shaped like the spec's samples. Free of vitest, so the benches use them too. */

/** The message body from the spec's sample request. */
export const sampleMessage = (appId: string) => ({
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
  filterId: 'segment-42',
  priority: 'LOW',
  favourite: 0,
  type: 'RICHPUSH',
  channel: 'PUSH',
});
