import './jobs.css';
import { useState } from 'react';
import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { jobStatuses, jobStatusNames, useJobsInState, type Job, type JobStatus } from './job-queries.ts';
import { overdueOf } from './overdue.ts';

function JobCard({ job, now }: { job: Job; now: number }) {
  const overdue = overdueOf(job, now);
  return (
    <li className={overdue ? 'card overdue' : 'card'}>
      <Link href={`/jobs/${job.id}`}>{job.title}</Link>
      {overdue && <strong className="badge">{overdue === 'job' ? 'Overdue' : 'Artist overdue'}</strong>}
      <dl className="card-fields">
        <dt>Artist</dt>
        <dd>{job.artist ?? '—'}</dd>
        <dt>Artist due</dt>
        <dd>{formatTime(job.artistDueDate)}</dd>
        <dt>Due</dt>
        <dd>{formatTime(job.dueDate)}</dd>
        {job.recordings.length > 0 && (
          <>
            <dt>Takes</dt>
            <dd>{job.recordings.length}</dd>
          </>
        )}
      </dl>
    </li>
  );
}

function Column({ status, now }: { status: JobStatus; now: number }) {
  const jobs = useJobsInState(status);
  const headingId = `jobs-${status.toLowerCase()}`;
  const items = jobs.data?.items ?? [];
  return (
    <section className="column" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {jobStatusNames[status]} <span className="count">{jobs.data ? `(${items.length}${jobs.data.nextCursor ? '+' : ''})` : ''}</span>
      </h2>
      {jobs.error && <ErrorMessage error={jobs.error} />}
      {jobs.isPending && <p role="status">Loading…</p>}
      {jobs.isSuccess && items.length === 0 && <p className="hint">None.</p>}
      {items.length > 0 && (
        <ul aria-labelledby={headingId}>
          {items.map((job) => (
            <JobCard key={job.id} job={job} now={now} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The recording jobs as a board, one column a state, with the artist and due dates; an overdue job says so in words. */
export default function JobsPage() {
  useDocumentTitle('Recording jobs');
  // One clock for the whole board, read when the page opens: every card is judged against the same time.
  const [now] = useState(() => Date.now());
  return (
    <>
      <h1>Recording jobs</h1>
      <p className="hint">Due dates are in your time zone; overdue is judged as of {formatTime(now)}.</p>
      <div className="board">
        {jobStatuses.map((status) => (
          <Column key={status} status={status} now={now} />
        ))}
      </div>
      <CopyAsCurl request={{ method: 'GET', path: '/job/list?status=SUBMITTED' }} />
    </>
  );
}
