import { useId, useState, type FormEvent } from 'react';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useCreateEndpoint, useEndpoints, useEventTypes, type NewEndpoint } from './settings-queries.ts';

type EventType = NewEndpoint['eventTypes'][number];

function NewEndpointForm({ accountId }: { accountId: string }) {
  const create = useCreateEndpoint(accountId);
  const eventTypes = useEventTypes();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<EventType[]>([]);
  const id = useId();
  const body: NewEndpoint = { url, eventTypes: chosen, ...(description ? { description } : {}) };
  const toggle = (type: EventType, on: boolean) => setChosen((before) => (on ? [...before, type] : before.filter((other) => other !== type)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(body);
  };
  return (
    <form className="settings-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Add an endpoint</h3>
      <label htmlFor={`${id}-url`}>URL (https)</label>
      <input id={`${id}-url`} type="url" required value={url} onChange={(event) => setUrl(event.target.value)} />
      <label htmlFor={`${id}-description`}>Description</label>
      <input id={`${id}-description`} value={description} onChange={(event) => setDescription(event.target.value)} />
      <fieldset>
        <legend>Events it receives</legend>
        {eventTypes.data?.eventTypes.map(({ type, description: about }) => (
          <div key={type} className="check">
            <input
              id={`${id}-${type}`}
              type="checkbox"
              checked={chosen.includes(type as EventType)}
              onChange={(event) => toggle(type as EventType, event.target.checked)}
              aria-describedby={`${id}-${type}-about`}
            />
            <label htmlFor={`${id}-${type}`}>
              <code>{type}</code>
            </label>{' '}
            <span id={`${id}-${type}-about`} className="hint">
              {about}
            </span>
          </div>
        ))}
      </fieldset>
      <button type="submit" disabled={create.isPending}>
        Add the endpoint
      </button>
      {create.error && <ErrorMessage error={create.error} />}
      {create.data && (
        <p role="status">
          Added. Its signing secret, shown this once: <code>{create.data.secret}</code>
        </p>
      )}
      <CopyAsCurl request={{ method: 'POST', path: `/accounts/${accountId}/endpoints`, body }} />
    </form>
  );
}

/** The account's webhook endpoints, and a form to add one (their attempts are under Deliveries). */
export function EndpointsSection({ accountId }: { accountId: string }) {
  const endpoints = useEndpoints(accountId);
  const items = endpoints.data?.endpoints ?? [];
  return (
    <section aria-labelledby="settings-endpoints">
      <h2 id="settings-endpoints">Endpoints</h2>
      {endpoints.error && <ErrorMessage error={endpoints.error} />}
      {endpoints.isSuccess && items.length === 0 && <p>No endpoints yet.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>Webhook endpoints</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">State</th>
              <th scope="col">Events</th>
              <th scope="col">Added</th>
            </tr>
          </thead>
          <tbody>
            {items.map((endpoint) => (
              <tr key={endpoint.endpointId}>
                <th scope="row">{endpoint.url}</th>
                <td>{endpoint.status}{endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}</td>
                <td>{endpoint.eventTypes.join(', ')}</td>
                <td>{formatTime(endpoint.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NewEndpointForm accountId={accountId} />
    </section>
  );
}
