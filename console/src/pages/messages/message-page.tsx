import { Link } from 'wouter';
import type { Schema } from '../../api/client.ts';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatClock, formatCount, formatRate, formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useMessage } from './message-queries.ts';

type Message = Schema<'NotificationWithSend'>;

/** The message's own fields, as a list of names and values (empty ones shown as a dash). */
function fieldsOf(message: Message): Array<[string, string]> {
  const text = (value: string | null) => value ?? '—';
  return [
    ['State', message.status],
    ['Type', message.type],
    ['Subtitle', text(message.subtitle)],
    ['Text', text(message.text)],
    ['Action', message.action],
    ['Fallback title', text(message.fbTitle)],
    ['Fallback subtitle', text(message.fbSubtitle)],
    ['Fallback text', text(message.fbText)],
    ['Expiry', `${message.expiry} min`],
    ['Play time', formatTime(message.playTime)],
    ['Segment', text(message.filterId)],
    ['Priority', message.priority],
    ['Recording', message.recording?.url ?? '—'],
    ['App', message.appId],
    ['Id', message.id],
    ['Created', formatTime(message.createdAt)],
    ['Updated', formatTime(message.updatedAt)],
  ];
}

/** A rate of the sent pushes with its formula; none until a push is sent. */
const rateOfSent = (rate: number | null, formula: string) => (rate === null ? 'none sent yet' : `${formatRate(rate)} (${formula})`);

/** The send's counts; each rate beside its count, with its formula. */
function SendCounts({ send }: { send: Message['send'] }) {
  const rows: Array<[string, number | null, string?]> = [
    ['Audience', send.audience],
    ['Sent', send.sent],
    ['Failed', send.failed],
    ['Unregistered', send.unregistered],
    ['Skipped', send.skipped],
    ['Cancelled', send.cancelled],
    ['Expired', send.expired],
    ['Capped', send.capped],
    ['Quiet hours', send.quiet],
    ['Clicked', send.clicked, rateOfSent(send.ctr, 'clicked ÷ sent')],
    ['Converted', send.conversions, rateOfSent(send.conversionRate, 'conversions ÷ sent')],
  ];
  return (
    <table className="counts">
      <caption>The send’s counts</caption>
      <thead>
        <tr>
          <th scope="col">Devices</th>
          <th scope="col">Count</th>
          <th scope="col">Rate</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, value, rate]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td className="number">{formatCount(value)}</td>
            <td>{rate ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function MessagePage({ id }: { id: string }) {
  const message = useMessage(id);
  useDocumentTitle(message.data?.title ?? 'Message');

  return (
    <>
      <p>
        <Link href="/messages">← Messages</Link>
      </p>
      {message.error && <ErrorMessage error={message.error} />}
      {message.isPending && <p role="status">Loading the message…</p>}
      {message.data && (
        <>
          <h1>{message.data.title}</h1>
          <section aria-labelledby="message-fields">
            <h2 id="message-fields">Fields</h2>
            <dl className="fields">
              {fieldsOf(message.data).map(([name, value]) => (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          </section>
          <section aria-labelledby="message-send">
            <h2 id="message-send">Send</h2>
            <p>
              State <strong>{message.data.send.state}</strong>
              {message.data.send.startedAt && <> · started {formatTime(message.data.send.startedAt)}</>}
              {message.data.send.finishedAt && <> · finished {formatTime(message.data.send.finishedAt)}</>}
              {message.data.send.reason && <> · {message.data.send.reason}</>}
            </p>
            <p className="hint" aria-live="polite">
              As of {formatClock(message.dataUpdatedAt)}
            </p>
            <SendCounts send={message.data.send} />
          </section>
          <CopyAsCurl request={{ method: 'GET', path: `/notification/get?id=${id}` }} />
        </>
      )}
    </>
  );
}
