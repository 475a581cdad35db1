import { useId } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { messageStatuses, useMessages, type MessageStatus } from './message-queries.ts';

const statusNames: Record<MessageStatus, string> = { DRAFT: 'Draft', RECORDING: 'Recording', READY: 'Ready' };

function statusFromSearch(search: string): MessageStatus | undefined {
  const value = new URLSearchParams(search).get('status');
  return messageStatuses.find((status) => status === value);
}

/** The messages, newest first, by state: the state is in the address, so a filtered list can be linked to. */
export default function MessagesPage() {
  useDocumentTitle('Messages');
  const status = statusFromSearch(useSearch());
  const [, navigate] = useLocation();
  const messages = useMessages(status);
  const stateId = useId();
  const items = messages.data?.pages.flatMap((page) => page.items) ?? [];
  const query = status ? `?status=${status}` : '';

  return (
    <>
      <h1>Messages</h1>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor={stateId}>State</label>
        <select id={stateId} value={status ?? ''} onChange={(event) => navigate(event.target.value ? `/messages?status=${event.target.value}` : '/messages')}>
          <option value="">All states</option>
          {messageStatuses.map((value) => (
            <option key={value} value={value}>
              {statusNames[value]}
            </option>
          ))}
        </select>
        <CopyAsCurl request={{ method: 'GET', path: `/notification/list${query}` }} />
      </form>

      {messages.error && <ErrorMessage error={messages.error} />}
      {messages.isPending && <p role="status">Loading messages…</p>}
      {messages.isSuccess && items.length === 0 && <p>No messages{status ? ` in state ${statusNames[status]}` : ''} yet.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>{status ? `${statusNames[status]} messages` : 'All messages'}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">State</th>
              <th scope="col">Type</th>
              <th scope="col">Play time</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((message) => (
              <tr key={message.id}>
                <th scope="row">
                  <Link href={`/messages/${message.id}`}>{message.title}</Link>
                </th>
                <td>{statusNames[message.status]}</td>
                <td>{message.type}</td>
                <td>{formatTime(message.playTime)}</td>
                <td>{formatTime(message.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {messages.hasNextPage && (
        <button type="button" onClick={() => void messages.fetchNextPage()} disabled={messages.isFetchingNextPage}>
          {messages.isFetchingNextPage ? 'Loading…' : 'Show more'}
        </button>
      )}
    </>
  );
}
