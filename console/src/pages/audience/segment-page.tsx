import './audience.css';
import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatClock, formatCount, formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useSegment, useSegmentSample } from './audience-queries.ts';

function Sample({ id }: { id: string }) {
  const sample = useSegmentSample(id);
  if (sample.error) return <ErrorMessage error={sample.error} />;
  if (!sample.data) return <p role="status">Counting…</p>;
  return (
    <section aria-labelledby="segment-size">
      <h2 id="segment-size">Size and sample</h2>
      <p>
        <strong className="figure">{formatCount(sample.data.deviceCount)}</strong> subscribed devices match now.{' '}
        <span className="hint" aria-live="polite">
          As of {formatClock(sample.dataUpdatedAt)}
        </span>
      </p>
      {sample.data.items.length > 0 && (
        <table className="list">
          <caption>The first {sample.data.items.length} devices the rules match, by device id</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Platform</th>
              <th scope="col">Person</th>
              <th scope="col">Locale</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {sample.data.items.map((device) => (
              <tr key={device.deviceId}>
                <th scope="row">
                  <code>{device.deviceId}</code>
                </th>
                <td>{device.platform}</td>
                <td>{device.clientUserId ?? '—'}</td>
                <td>{device.locale ?? '—'}</td>
                <td>{formatTime(device.lastSeenAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CopyAsCurl request={{ method: 'GET', path: `/filter/sample?id=${id}&limit=10` }} />
    </section>
  );
}

/** A segment: its rules, its size counted live (again every 5 s), and the first devices it picks. */
export default function SegmentPage({ id }: { id: string }) {
  const segment = useSegment(id);
  useDocumentTitle(segment.data?.name ?? 'Segment');
  return (
    <>
      <p>
        <Link href="/audience">← Audience</Link>
      </p>
      {segment.error && <ErrorMessage error={segment.error} />}
      {segment.data && (
        <>
          <h1>{segment.data.name}</h1>
          <Sample id={id} />
          <section aria-labelledby="segment-rules">
            <h2 id="segment-rules">Rules</h2>
            <pre className="rules">{JSON.stringify(segment.data.rules, null, 2)}</pre>
          </section>
        </>
      )}
    </>
  );
}
