import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatCount, formatTime } from '../../components/format.ts';
import { useRedeliver, type Delivery } from './delivery-queries.ts';

/** The start of a response body: enough to recognise it; the API keeps the first 4 KB. */
const excerpt = (body: string | null) => (body === null ? '—' : body.length > 200 ? `${body.slice(0, 200)}…` : body || '(empty)');

function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) return <p>No attempt yet.</p>;
  return (
    <table className="counts attempts">
      <caption>Attempts of {delivery.deliveryId}</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Started</th>
          <th scope="col">Status</th>
          <th scope="col">Latency</th>
          <th scope="col">Outcome</th>
          <th scope="col">Response</th>
        </tr>
      </thead>
      <tbody>
        {delivery.attempts.map((attempt) => (
          <tr key={attempt.attemptNumber}>
            <th scope="row">{attempt.attemptNumber}</th>
            <td>{formatTime(attempt.startedAt)}</td>
            <td>{attempt.statusCode ?? 'no answer'}</td>
            <td className="number">{formatCount(attempt.durationMs)} ms</td>
            <td>{attempt.outcome}</td>
            <td>
              <code className="excerpt">{attempt.error ? `${attempt.error} ` : ''}{excerpt(attempt.responseBody)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One delivery: its event and status, then its attempts, redelivery and the same as curl, behind a disclosure. */
export function DeliveryRow({ delivery, accountId, endpointId }: { delivery: Delivery; accountId: string; endpointId: string }) {
  const redeliver = useRedeliver(accountId, endpointId);
  const path = `/accounts/${accountId}/deliveries/${delivery.deliveryId}/redeliver`;
  return (
    <tr data-delivery-id={delivery.deliveryId}>
      <th scope="row">
        <code>{delivery.eventType}</code> <span className="hint">{delivery.eventId}</span>
      </th>
      <td>{delivery.status}</td>
      <td>{delivery.lastStatusCode ?? '—'}</td>
      <td>{delivery.redeliveryOf ? `redelivery of ${delivery.redeliveryOf}` : '—'}</td>
      <td>{formatTime(delivery.createdAt)}</td>
      <td>
        <details>
          <summary>
            {delivery.attemptCount === 1 ? '1 attempt' : `${delivery.attemptCount} attempts`}<span className="visually-hidden"> of {delivery.deliveryId}</span>
          </summary>
          <Attempts delivery={delivery} />
          {delivery.failureReason && <p>Failed: {delivery.failureReason}</p>}
          <button type="button" onClick={() => redeliver.mutate(delivery.deliveryId)} disabled={redeliver.isPending}>
            Redeliver {delivery.deliveryId}
          </button>
          <span role="status">{redeliver.data ? ` Redelivering as ${redeliver.data.deliveryId}.` : ''}</span>
          {redeliver.error && <ErrorMessage error={redeliver.error} />}
          <CopyAsCurl request={{ method: 'POST', path }} />
        </details>
      </td>
    </tr>
  );
}
