import { useId, useState, type FormEvent } from 'react';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useUpdateApp, type App, type AppChanges } from './settings-queries.ts';

/** The zones the browser knows (IANA names), for the time zone's list; the API checks the name again. */
const timeZones: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

interface AppDraft {
  defaultTimezone: string;
  capped: boolean;
  capMax: string;
  capHours: string;
  quiet: boolean;
  quietStart: string;
  quietEnd: string;
  quietAction: 'delay' | 'skip';
}

const draftOf = (app: App): AppDraft => ({
  defaultTimezone: app.defaultTimezone,
  capped: app.frequencyCap !== null,
  capMax: String(app.frequencyCap?.max ?? 3),
  capHours: String(app.frequencyCap?.hours ?? 24),
  quiet: app.quietHours !== null,
  quietStart: app.quietHours?.start ?? '22:00',
  quietEnd: app.quietHours?.end ?? '08:00',
  quietAction: app.quietHours?.action ?? 'delay',
});

/** The PATCH body the form stands for: every setting it shows, `null` for a cap or quiet hours turned off. */
const changesOf = (draft: AppDraft): AppChanges => ({
  defaultTimezone: draft.defaultTimezone,
  frequencyCap: draft.capped ? { max: Number(draft.capMax), hours: Number(draft.capHours) } : null,
  quietHours: draft.quiet ? { start: draft.quietStart, end: draft.quietEnd, action: draft.quietAction } : null,
});

/** One app's delivery settings: its default time zone, frequency cap and quiet hours (PATCH /accounts/{accountId}/apps/{appId}). */
export function AppForm({ accountId, app }: { accountId: string; app: App }) {
  const update = useUpdateApp(accountId, app.appId);
  const [draft, setDraft] = useState(() => draftOf(app));
  const id = useId();
  const set = (changes: Partial<AppDraft>) => setDraft((before) => ({ ...before, ...changes }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(changesOf(draft));
  };
  return (
    <form className="settings-form" onSubmit={submit} aria-labelledby={`${id}-name`}>
      <h3 id={`${id}-name`}>{app.name}</h3>
      <p className="hint">
        App <code>{app.appId}</code>
      </p>
      <label htmlFor={`${id}-tz`}>Default time zone</label>
      <select id={`${id}-tz`} value={draft.defaultTimezone} onChange={(event) => set({ defaultTimezone: event.target.value })}>
        {(timeZones.includes(draft.defaultTimezone) ? timeZones : [draft.defaultTimezone, ...timeZones]).map((zone) => (
          <option key={zone}>{zone}</option>
        ))}
      </select>
      <fieldset>
        <legend>Frequency cap</legend>
        <input id={`${id}-capped`} type="checkbox" checked={draft.capped} onChange={(event) => set({ capped: event.target.checked })} />
        <label htmlFor={`${id}-capped`}>Limit the pushes a device gets</label>
        {draft.capped && (
          <>
            <label htmlFor={`${id}-max`}>At most (pushes)</label>
            <input id={`${id}-max`} type="number" min={1} max={1000} required value={draft.capMax} onChange={(event) => set({ capMax: event.target.value })} />
            <label htmlFor={`${id}-hours`}>in any window of (hours)</label>
            <input id={`${id}-hours`} type="number" min={1} max={720} required value={draft.capHours} onChange={(event) => set({ capHours: event.target.value })} />
          </>
        )}
      </fieldset>
      <fieldset>
        <legend>Quiet hours, in each device’s local time</legend>
        <input id={`${id}-quiet`} type="checkbox" checked={draft.quiet} onChange={(event) => set({ quiet: event.target.checked })} />
        <label htmlFor={`${id}-quiet`}>Keep campaign pushes out of these hours</label>
        {draft.quiet && (
          <>
            <label htmlFor={`${id}-start`}>From</label>
            <input id={`${id}-start`} type="time" required value={draft.quietStart} onChange={(event) => set({ quietStart: event.target.value })} />
            <label htmlFor={`${id}-end`}>to</label>
            <input id={`${id}-end`} type="time" required value={draft.quietEnd} onChange={(event) => set({ quietEnd: event.target.value })} />
            <label htmlFor={`${id}-action`}>A push due then is</label>
            <select id={`${id}-action`} value={draft.quietAction} onChange={(event) => set({ quietAction: event.target.value as AppDraft['quietAction'] })}>
              <option value="delay">held until they end</option>
              <option value="skip">skipped</option>
            </select>
          </>
        )}
      </fieldset>
      <button type="submit" disabled={update.isPending}>
        Save {app.name}
      </button>
      <span role="status" className="hint">
        {update.isSuccess ? 'Saved.' : ''}
      </span>
      {update.error && <ErrorMessage error={update.error} />}
      <CopyAsCurl request={{ method: 'PATCH', path: `/accounts/${accountId}/apps/${app.appId}`, body: changesOf(draft) }} />
    </form>
  );
}
