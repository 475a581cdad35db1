import { useId, useState, type FormEvent } from 'react';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useScheduleSend, useSegments, type Message, type ScheduleBody } from './message-queries.ts';

/** The throttle's range, as POST /notification/schedule takes it (`ratePerMinute`). */
const minRate = 100;
const maxRate = 1_000_000;

type When = 'now' | 'message' | 'at';

interface Fields {
  when: When;
  /** The time typed, for `at`. */
  playTime: string;
  /** When "now" was last set (a change to the form, or the submit): the request's playTime for `now`. */
  nowMs: number;
  filterId: string;
  ratePerMinute: string;
  sendInLocalTime: boolean;
}

/** The request's body: only what the form sets, so the API's defaults (the message's own) hold for the rest. */
export function scheduleBody(fields: Fields): ScheduleBody {
  const body: ScheduleBody = {};
  if (fields.when === 'now') body.playTime = fields.nowMs;
  // datetime-local is the browser's wall-clock time: Date reads it in the browser's time zone.
  if (fields.when === 'at' && fields.playTime) body.playTime = new Date(fields.playTime).getTime();
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
  const ids = { when: useId(), time: useId(), segment: useId(), rate: useId(), local: useId() };
  const [fields, setFields] = useState<Fields>(() => ({ when: 'now', playTime: '', nowMs: Date.now(), filterId: '', ratePerMinute: '', sendInLocalTime: false }));
  const set = (change: Partial<Fields>) => setFields((current) => ({ ...current, nowMs: Date.now(), ...change }));
  const body = scheduleBody(fields);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    schedule.mutate(scheduleBody({ ...fields, nowMs: Date.now() }));
  };
  return (
    <form className="form" onSubmit={submit} aria-label="Schedule the send">
      <label htmlFor={ids.when}>When</label>
      <select id={ids.when} value={fields.when} onChange={(event) => set({ when: event.target.value as When })}>
        <option value="now">Now</option>
        {message.playTime !== null && <option value="message">At the message’s play time, {formatTime(message.playTime)}</option>}
        <option value="at">At a time…</option>
      </select>
      {fields.when === 'at' && (
        <>
          <label htmlFor={ids.time}>Time, in your time zone</label>
          <input id={ids.time} type="datetime-local" required value={fields.playTime} onChange={(event) => set({ playTime: event.target.value })} />
        </>
      )}
      <label htmlFor={ids.segment}>Segment</label>
      <SegmentField appId={message.appId} id={ids.segment} value={fields.filterId} onChange={(filterId) => set({ filterId })} />
      <label htmlFor={ids.rate}>Throttle, pushes a minute (empty for unthrottled)</label>
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
