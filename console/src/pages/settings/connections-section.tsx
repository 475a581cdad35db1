import { useId, useState, type FormEvent } from 'react';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useConnections, useCreateConnection, type NewConnection } from './settings-queries.ts';

const providers: Array<NewConnection['provider']> = ['direct', 'webhook', 'segment', 'rudderstack'];

function NewConnectionForm({ accountId }: { accountId: string }) {
  const create = useCreateConnection(accountId);
  const [provider, setProvider] = useState<NewConnection['provider']>('direct');
  const [label, setLabel] = useState('');
  const id = useId();
  const body: NewConnection = { provider, label };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(body);
  };
  return (
    <form className="settings-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Add a connection</h3>
      <label htmlFor={`${id}-provider`}>Provider</label>
      <select id={`${id}-provider`} value={provider} onChange={(event) => setProvider(event.target.value as NewConnection['provider'])}>
        {providers.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
      <label htmlFor={`${id}-label`}>Label</label>
      <input id={`${id}-label`} required value={label} onChange={(event) => setLabel(event.target.value)} />
      <button type="submit" disabled={create.isPending}>
        Add the connection
      </button>
      {create.error && <ErrorMessage error={create.error} />}
      {create.data && (
        <div role="status">
          <p>Added. Post events to its inbound URL, signed with its secret (shown this once):</p>
          <dl className="fields">
            <div>
              <dt>Inbound URL</dt>
              <dd>
                <code>{create.data.inboundUrl}</code>
              </dd>
            </div>
            <div>
              <dt>Signing secret</dt>
              <dd>
                <code>{create.data.signingSecret}</code>
              </dd>
            </div>
          </dl>
        </div>
      )}
      <CopyAsCurl request={{ method: 'POST', path: `/accounts/${accountId}/connections`, body }} />
    </form>
  );
}

/** The account's connections (where events come in from), and a form to add one. */
export function ConnectionsSection({ accountId }: { accountId: string }) {
  const connections = useConnections(accountId);
  const items = connections.data?.connections ?? [];
  return (
    <section aria-labelledby="settings-connections">
      <h2 id="settings-connections">Connections</h2>
      {connections.error && <ErrorMessage error={connections.error} />}
      {connections.isSuccess && items.length === 0 && <p>No connections yet.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>Connections</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Provider</th>
              <th scope="col">State</th>
              <th scope="col">Last event in</th>
            </tr>
          </thead>
          <tbody>
            {items.map((connection) => (
              <tr key={connection.connectionId}>
                <th scope="row">{connection.label}</th>
                <td>{connection.provider}</td>
                <td>{connection.status}</td>
                <td>{formatTime(connection.lastInboundAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NewConnectionForm accountId={accountId} />
    </section>
  );
}
