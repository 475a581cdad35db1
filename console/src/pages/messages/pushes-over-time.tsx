import { ErrorMessage } from '../../components/error-message.tsx';
import { formatClock, formatCount } from '../../components/format.ts';
import { maxPushPages, useSentPushes } from './message-queries.ts';

export interface Bucket {
  start: number;
  count: number;
}

/** A bucket size that gives a readable number of bars for the send's span: 5 s, a minute, or an hour. */
function bucketSizeMs(spanMs: number): number {
  if (spanMs <= 2 * 60_000) return 5_000;
  if (spanMs <= 2 * 3_600_000) return 60_000;
  return 3_600_000;
}

/** The pushes counted by the time they were sent, in equal buckets from the first to the last, empty ones included. */
export function bucketsOf(sentAt: string[]): { sizeMs: number; buckets: Bucket[] } {
  const times = sentAt.map((time) => Date.parse(time)).sort((a, b) => a - b);
  if (times.length === 0) return { sizeMs: 0, buckets: [] };
  const sizeMs = bucketSizeMs(times.at(-1)! - times[0]!);
  const first = Math.floor(times[0]! / sizeMs) * sizeMs;
  const buckets: Bucket[] = [];
  for (let start = first; start <= times.at(-1)!; start += sizeMs) buckets.push({ start, count: 0 });
  for (const time of times) buckets[Math.floor((time - first) / sizeMs)]!.count += 1;
  return { sizeMs, buckets };
}

const width = 480;
const height = 140;
const axis = 20;

function Bars({ buckets }: { buckets: Bucket[] }) {
  const largest = Math.max(1, ...buckets.map((bucket) => bucket.count));
  const barWidth = (width - axis) / buckets.length;
  return (
    <svg className="chart" viewBox={`0 0 ${width} ${height + axis}`} aria-hidden="true" focusable="false">
      <line x1={axis} y1={height} x2={width} y2={height} className="axis" />
      <text x={0} y={12} className="chart-value">
        {formatCount(largest)}
      </text>
      {buckets.map((bucket, index) => {
        const barHeight = (bucket.count / largest) * (height - 10);
        return <rect key={bucket.start} className="bar" x={axis + index * barWidth} y={height - barHeight} width={Math.max(1, barWidth - 2)} height={barHeight} />;
      })}
      <text x={axis} y={height + 15} className="chart-label">
        {formatClock(buckets[0]!.start)}
      </text>
    </svg>
  );
}

const sizeName = (sizeMs: number) => (sizeMs === 5_000 ? '5 seconds' : sizeMs === 60_000 ? 'minute' : 'hour');

/** Pushes sent over time (GET /push/sends?status=sent), a bar chart and a table of the same buckets. */
export function PushesOverTime({ notificationId, sentCount }: { notificationId: string; sentCount: number }) {
  const pushes = useSentPushes(notificationId, sentCount);
  if (pushes.error) return <ErrorMessage error={pushes.error} />;
  if (!pushes.data) return <p role="status">Loading the pushes…</p>;
  const { sizeMs, buckets } = bucketsOf(pushes.data.sentAt);
  if (buckets.length === 0) return <p>No push sent yet.</p>;
  return (
    <>
      {!pushes.data.complete && <p className="hint">The latest {formatCount(maxPushPages * 100)} pushes only.</p>}
      <div className="chart-with-table">
        <Bars buckets={buckets} />
        <table className="counts pushes">
          <caption>Pushes sent per {sizeName(sizeMs)}</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">Pushes</th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((bucket) => (
              <tr key={bucket.start}>
                <th scope="row">{formatClock(bucket.start)}</th>
                <td className="number">{formatCount(bucket.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
