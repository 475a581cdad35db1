import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatClock, formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { AudioPlayer } from './audio-player.tsx';
import { CancelForm, TestSendForm } from './cancel-and-test-forms.tsx';
import { DevicePreview } from './device-preview.tsx';
import { isSendLive, useMessage, type Message } from './message-queries.ts';
import { PushesOverTime } from './pushes-over-time.tsx';
import { ScheduleForm } from './schedule-form.tsx';
import { SendFunnel } from './send-funnel.tsx';

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
    ['Conversion goal', message.conversion ? `${message.conversion.eventType} within ${message.conversion.withinHours} h` : '—'],
    ['App', message.appId],
    ['Id', message.id],
    ['Created', formatTime(message.createdAt)],
    ['Updated', formatTime(message.updatedAt)],
  ];
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** The send's state and times, its schedule, and when its figures were read (live while it sends). */
function SendSummary({ message, readAt }: { message: Message; readAt: number }) {
  const { send } = message;
  const live = isSendLive(send.state);
  return (
    <>
      <p>
        State <strong>{send.state}</strong>
        {send.playTime !== null && <> · at {formatTime(send.playTime)}</>}
        {send.sendInLocalTime && <> · in each device’s local time</>}
        {' · '}
        {send.ratePerMinute === null ? 'unthrottled' : `at most ${send.ratePerMinute} a minute`}
        {send.startedAt && <> · started {formatTime(send.startedAt)}</>}
        {send.finishedAt && <> · finished {formatTime(send.finishedAt)}</>}
        {send.reason && <> · {send.reason}</>}
      </p>
      <p className="hint" aria-live="polite">
        As of {formatClock(readAt)}
        {live ? ' · live, read every 2 s' : ''}
      </p>
    </>
  );
}

function MessageDetail({ message, readAt }: { message: Message; readAt: number }) {
  return (
    <>
      <h1>{message.title}</h1>
      <div className="two-columns">
        <Section id="message-preview" title="Preview">
          <DevicePreview message={message} />
          {message.recording ? <AudioPlayer recording={message.recording} /> : <p className="hint">No recording yet.</p>}
        </Section>
        <Section id="message-fields" title="Fields">
          <dl className="fields">
            {fieldsOf(message).map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </Section>
      </div>
      <Section id="message-send" title="Send">
        <SendSummary message={message} readAt={readAt} />
        <h3>Funnel</h3>
        <SendFunnel send={message.send} />
        <h3>Pushes over time</h3>
        <PushesOverTime notificationId={message.id} sentCount={message.send.sent} />
      </Section>
      <Section id="message-schedule" title="Schedule">
        <ScheduleForm message={message} />
      </Section>
      <Section id="message-cancel" title="Cancel">
        <CancelForm message={message} />
      </Section>
      <Section id="message-test" title="Test send">
        <TestSendForm message={message} />
      </Section>
      <CopyAsCurl request={{ method: 'GET', path: `/notification/get?id=${message.id}` }} />
    </>
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
      {message.data && <MessageDetail message={message.data} readAt={message.dataUpdatedAt} />}
    </>
  );
}
