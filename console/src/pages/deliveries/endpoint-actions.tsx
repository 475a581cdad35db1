import { useId, useState } from 'react';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useRecover, useSendTestEvent } from './delivery-queries.ts';

/** A datetime-local field's value (the reader's local time) for a moment. */
const localInputValue = (time: number) => {
  const date = new Date(time);
  return new Date(time - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** The field's local time as ISO 8601 UTC, or undefined while it is not a time. */
const isoOf = (local: string) => {
  const time = new Date(local).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
};

export function SendTestEvent({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const send = useSendTestEvent(accountId, endpointId);
  return (
    <section aria-labelledby="test-event">
      <h2 id="test-event">Send a test event</h2>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          send.mutate();
        }}
      >
        <button type="submit" disabled={send.isPending}>
          Send a webhook.test event
        </button>
        <span role="status">{send.data ? `Sent event ${send.data.eventId}; its delivery shows below.` : ''}</span>
      </form>
      {send.error && <ErrorMessage error={send.error} />}
      <CopyAsCurl request={{ method: 'POST', path: `/accounts/${accountId}/endpoints/${endpointId}/test` }} />
    </section>
  );
}

export function RecoverFailed({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const recover = useRecover(accountId, endpointId);
  const [since, setSince] = useState(() => localInputValue(Date.now() - 24 * 3600_000));
  const sinceId = useId();
  const iso = isoOf(since);
  return (
    <section aria-labelledby="recover">
      <h2 id="recover">Recover failed deliveries</h2>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          if (iso) recover.mutate(iso);
        }}
      >
        <label htmlFor={sinceId}>Failed since (your local time)</label>
        <input id={sinceId} type="datetime-local" required value={since} onChange={(event) => setSince(event.target.value)} />
        <button type="submit" disabled={recover.isPending || !iso}>
          Redeliver every failed delivery since then
        </button>
        <span role="status">{recover.data ? `Redelivering ${recover.data.recovered} failed deliveries${recover.data.more ? '; more remain: recover again' : ''}.` : ''}</span>
      </form>
      {recover.error && <ErrorMessage error={recover.error} />}
      <CopyAsCurl request={{ method: 'POST', path: `/accounts/${accountId}/endpoints/${endpointId}/recover`, body: { since: iso ?? '' } }} />
    </section>
  );
}
