import './artist.css';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { ArtistTakes } from './artist-takes-section.tsx';

/** Why a link does not open, in the artist's words: 404 is no link, 410 one that has ended. */
function linkProblem(error: Error): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.status === 404) return 'This link does not open any recording job. Check that it was copied whole.';
  if (error.status === 410) return 'This link no longer opens: ask whoever sent it for a new one.';
  return undefined;
}

/**
 * The artist's page, `/artist/{token}`: no sign-in, the link's token is the only credential, and it shows nothing but
 * that job (GET /artist/{token}/job): its script and due dates, then the takes: upload a file or record one, and
 * follow each as the service checks it.
 */
export default function ArtistPage({ token }: { token: string }) {
  const job = useQuery({
    queryKey: ['artist-job', token],
    queryFn: () => unwrap(api.GET('/artist/{token}/job', { params: { path: { token } } })),
  });
  useDocumentTitle(job.data?.title ?? 'Recording job');
  const problem = job.error ? linkProblem(job.error) : undefined;

  return (
    <main id="main" className="artist">
      {job.isPending && <p role="status">Loading the job…</p>}
      {problem && (
        <>
          <h1>This link does not open</h1>
          <p role="alert">{problem}</p>
        </>
      )}
      {job.error && !problem && <ErrorMessage error={job.error} />}
      {job.data && (
        <>
          <h1>{job.data.title}</h1>
          {job.data.description && <p>{job.data.description}</p>}
          <dl className="fields">
            <div>
              <dt>Due</dt>
              <dd>{formatTime(job.data.artistDueDate ?? job.data.dueDate)}</dd>
            </div>
            <div>
              <dt>This link opens until</dt>
              <dd>{formatTime(job.data.linkExpiresAt)}</dd>
            </div>
          </dl>
          <section aria-labelledby="artist-script">
            <h2 id="artist-script">Script</h2>
            <p className="script">{job.data.script ?? 'No script: record what the title and description ask for.'}</p>
          </section>
          <ArtistTakes token={token} />
        </>
      )}
    </main>
  );
}
