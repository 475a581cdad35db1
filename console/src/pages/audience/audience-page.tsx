import './audience.css';
import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { AppPicker } from './app-picker.tsx';
import { useDevices, useSegments } from './audience-queries.ts';

function Devices({ appId }: { appId: string }) {
  const devices = useDevices(appId);
  const items = devices.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby="audience-devices">
      <h2 id="audience-devices">Devices</h2>
      {devices.error && <ErrorMessage error={devices.error} />}
      {devices.isSuccess && items.length === 0 && <p>No devices registered yet.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>The app’s devices, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Platform</th>
              <th scope="col">Person</th>
              <th scope="col">Subscribed</th>
              <th scope="col">Time zone</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {items.map((device) => (
              <tr key={device.deviceId}>
                <th scope="row">
                  <code>{device.deviceId}</code>
                </th>
                <td>{device.platform}</td>
                <td>{device.clientUserId ?? '—'}</td>
                <td>{device.subscribed ? 'yes' : 'no'}</td>
                <td>{device.timezone ?? '—'}</td>
                <td>{formatTime(device.lastSeenAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {devices.hasNextPage && (
        <button type="button" onClick={() => void devices.fetchNextPage()} disabled={devices.isFetchingNextPage}>
          {devices.isFetchingNextPage ? 'Loading…' : 'Show more devices'}
        </button>
      )}
      <CopyAsCurl request={{ method: 'GET', path: `/device/list?appId=${appId}&limit=50` }} />
    </section>
  );
}

function Segments({ appId }: { appId: string }) {
  const segments = useSegments(appId);
  const items = segments.data?.items ?? [];
  return (
    <section aria-labelledby="audience-segments">
      <h2 id="audience-segments">Segments</h2>
      {segments.error && <ErrorMessage error={segments.error} />}
      {segments.isSuccess && items.length === 0 && <p>No segments yet.</p>}
      {items.length > 0 && (
        <ul>
          {items.map((segment) => (
            <li key={segment.id}>
              <Link href={`/audience/segments/${segment.id}`}>{segment.name}</Link> <span className="hint">updated {formatTime(segment.updatedAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Who the account reaches: an app's devices and segments (each segment's size and sample on its own page). */
export default function AudiencePage() {
  useDocumentTitle('Audience');
  return (
    <>
      <h1>Audience</h1>
      <p>
        <Link href="/audience/events">Events held or refused at ingest</Link>
      </p>
      <AppPicker>
        {(appId) => (
          <>
            <Segments appId={appId} />
            <Devices appId={appId} />
          </>
        )}
      </AppPicker>
    </>
  );
}
