import './jobs.css';
import { useState } from 'react';
import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { jobStatusNames, useAcceptJob, useJob, useJobTakes, useSelectTake, type Job, type Take } from './job-queries.ts';
import { overdueOf } from './overdue.ts';
import { TakeAudio, takeStateText } from './take-audio.tsx';

function JobFields({ job }: { job: Job }) {
  // Judged once, when the fields are first shown, as the board does.
  const [now] = useState(() => Date.now());
  const overdue = overdueOf(job, now);
  const rows: Array<[string, string]> = [
    ['State', jobStatusNames[job.status]],
    ['Artist', job.artist ?? '—'],
    ['Artist due', formatTime(job.artistDueDate)],
    ['Due', `${formatTime(job.dueDate)}${overdue === 'job' ? ' (overdue)' : ''}`],
    ['Artist’s link', job.artistLink ? `${job.artistLink.url} (opens until ${formatTime(job.artistLink.expiresAt)})` : '—'],
    ['Script', job.script ?? '—'],
    ['Message', job.notificationId],
  ];
  return (
    <dl className="fields">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One take: its state, a player once it plays, and the select button while the job takes a selection. */
function TakeRow({ job, take }: { job: Job; take: Take }) {
  const select = useSelectTake(job.id);
  const selected = job.selectedFileId === take.fileId;
  const selectable = take.status === 'ready' && (job.status === 'SUBMITTED' || job.status === 'SELECTED') && !selected;
  const name = take.fileName ?? take.fileId;
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{selected ? 'selected' : takeStateText(take)}</td>
      <td>
        <TakeAudio take={take} label={`Play ${name}`} />
      </td>
      <td>
        {selectable && (
          <button type="button" onClick={() => select.mutate(take.fileId)} disabled={select.isPending} aria-label={`Select ${name}`}>
            Select
          </button>
        )}
        {select.error && <ErrorMessage error={select.error} />}
      </td>
    </tr>
  );
}

function Takes({ job }: { job: Job }) {
  const takes = useJobTakes(job.id);
  const items = takes.data?.items ?? [];
  return (
    <section aria-labelledby="job-takes">
      <h2 id="job-takes">Takes</h2>
      {takes.error && <ErrorMessage error={takes.error} />}
      {takes.isSuccess && items.length === 0 && <p>No takes yet: the artist uploads them through the link.</p>}
      {items.length > 0 && (
        <table className="list">
          <caption>The job’s takes, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Take</th>
              <th scope="col">State</th>
              <th scope="col">Listen</th>
              <th scope="col">Choose</th>
            </tr>
          </thead>
          <tbody>
            {items.map((take) => (
              <TakeRow key={take.fileId} job={job} take={take} />
            ))}
          </tbody>
        </table>
      )}
      <CopyAsCurl request={{ method: 'GET', path: `/job/files?id=${job.id}` }} />
    </section>
  );
}

function Accept({ job }: { job: Job }) {
  const accept = useAcceptJob(job.id);
  if (job.status !== 'SELECTED') return null;
  return (
    <section aria-labelledby="job-accept">
      <h2 id="job-accept">Accept</h2>
      <p>Accepting makes the message ready with the selected take, and ends the artist’s link.</p>
      <button type="button" onClick={() => accept.mutate()} disabled={accept.isPending}>
        Accept the selected take
      </button>
      {accept.error && <ErrorMessage error={accept.error} />}
      <CopyAsCurl request={{ method: 'POST', path: `/job/accept?id=${job.id}` }} />
    </section>
  );
}

/** A recording job: its fields, its takes with players, select one and accept it. */
export default function JobPage({ id }: { id: string }) {
  const job = useJob(id);
  useDocumentTitle(job.data?.title ?? 'Recording job');
  return (
    <>
      <p>
        <Link href="/jobs">← Recording jobs</Link>
      </p>
      {job.error && <ErrorMessage error={job.error} />}
      {job.isPending && <p role="status">Loading the job…</p>}
      {job.data && (
        <>
          <h1>{job.data.title}</h1>
          <JobFields job={job.data} />
          <Takes job={job.data} />
          <Accept job={job.data} />
          {job.data.status === 'ACCEPTED' && (
            <p>
              Accepted: the message <Link href={`/messages/${job.data.notificationId}`}>plays the selected take</Link>.
            </p>
          )}
        </>
      )}
    </>
  );
}
