import { useId, useState, type FormEvent } from 'react';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useScheduleSend, useSegments, type Message, type ScheduleBody } from './message-queries.ts';

/** The throttle's range, as POST /notification/schedule takes it (`ratePerMinute`). */
const minRate = 100;
const maxRate = 1_000_000;

interface Fields {
  playTime: string;
  filterId: string;
  ratePerMinute: string;
  sendInLocalTime: boolean;
}

/** The request's body: only what the form sets, so the API's defaults (the message's own) hold for the rest. */
export function scheduleBody(fields: Fields): ScheduleBody {
  const body: ScheduleBody = {};
  // datetime-local is the browser's wall-clock time: Date reads it in the browser's time zone.
  if (fields.playTime) body.playTime = new Date(fields.playTime).getTime();
  if (fields.filterId) body.filterId = fields.filterId;
  if (fields.ratePerMinute) body.ratePerMinute = Number(fields.ratePerMinute);
  if (fields.sendInLocalTime) body.sendInLocalTime = true;
  return body;
}

function SegmentField({ appId, id, value, onChange }: { appId: string; id: string; value: string; onChange: (value: string) => void }) {
  const segments = useSegments(appId);
  return (
    <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">The message’s own segment</option>
      {segments.data?.items.map((segment) => (
        <option key={segment.id} value={segment.id}>
          {segment.name}
        </option>
      ))}
    </select>
  );
}

/** Schedules the message's send (POST /notification/schedule): when, to which segment, throttled or not, in local time or not. */
export function ScheduleForm({ message }: { message: Message }) {
  const schedule = useScheduleSend(message);
  const ids = { time: useId(), segment: useId(), rate: useId(), local: useId() };
  const [fields, setFields] = useState<Fields>({ playTime: '', filterId: '', ratePerMinute: '', sendInLocalTime: false });
  const set = (change: Partial<Fields>) => setFields((current) => ({ ...current, ...change }));
  const body = scheduleBody(fields);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    schedule.mutate(body);
  };
  return (
    <form className="form" onSubmit={submit} aria-label="Schedule the send">
      <label htmlFor={ids.time}>Time (your time zone; empty: the message’s play time, else now)</label>
      <input id={ids.time} type="datetime-local" value={fields.playTime} onChange={(event) => set({ playTime: event.target.value })} />
      <label htmlFor={ids.segment}>Segment</label>
      <SegmentField appId={message.appId} id={ids.segment} value={fields.filterId} onChange={(filterId) => set({ filterId })} />
      <label htmlFor={ids.rate}>Throttle, pushes a minute (empty: unthrottled)</label>
      <input id={ids.rate} type="number" min={minRate} max={maxRate} step={1} value={fields.ratePerMinute} onChange={(event) => set({ ratePerMinute: event.target.value })} />
      <span className="checkbox">
        <input id={ids.local} type="checkbox" checked={fields.sendInLocalTime} onChange={(event) => set({ sendInLocalTime: event.target.checked })} />
        <label htmlFor={ids.local}>In each device’s local time (the time’s wall clock, in every time zone)</label>
      </span>
      <div className="form-actions">
        <button type="submit" disabled={schedule.isPending}>
          Schedule the send
        </button>
        {schedule.isSuccess && (
          <span role="status">
            Scheduled: {schedule.data.send.state}, at {formatTime(schedule.data.send.playTime)}
          </span>
        )}
      </div>
      {schedule.error && <ErrorMessage error={schedule.error} />}
      <CopyAsCurl request={{ method: 'POST', path: `/notification/schedule?id=${message.id}&appId=${message.appId}`, body }} />
    </form>
  );
}
