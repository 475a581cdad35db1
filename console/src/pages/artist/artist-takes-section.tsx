import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { TakeAudio, takeStateText } from '../jobs/take-audio.tsx';
import { useArtistTakes, useDeleteTake, type ArtistTake } from './artist-takes.ts';
import { TakeRecorder } from './take-recorder.tsx';
import { TakeUpload } from './take-upload.tsx';

function TakeRow({ token, take, deletable }: { token: string; take: ArtistTake; deletable: boolean }) {
  const remove = useDeleteTake(token);
  const name = take.fileName ?? take.fileId;
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{formatTime(take.createdAt)}</td>
      <td>{take.selected ? `selected (${takeStateText(take)})` : takeStateText(take)}</td>
      <td>
        <TakeAudio take={take} label={`Play ${name}`} />
      </td>
      <td>
        {deletable && (
          <button type="button" className="secondary" onClick={() => remove.mutate(take.fileId)} disabled={remove.isPending} aria-label={`Delete ${name}`}>
            Delete
          </button>
        )}
        {remove.error && <ErrorMessage error={remove.error} />}
      </td>
    </tr>
  );
}

/** The artist's side of the takes: send one (a file, or recorded here), then see each checked, play it, or delete it. */
export function ArtistTakes({ token }: { token: string }) {
  const takes = useArtistTakes(token);
  const items = takes.data?.items ?? [];
  // Once the account has selected a take, the takes are kept as they are: none can be deleted.
  const deletable = !items.some((take) => take.selected);
  return (
    <>
      <section aria-labelledby="artist-send">
        <h2 id="artist-send">Send a take</h2>
        <p className="hint">WAV, AIFF, MP3, M4A, FLAC or Ogg, 1 second to 2 minutes. Each take is checked and its loudness evened out.</p>
        <TakeUpload token={token} />
        <TakeRecorder token={token} />
      </section>
      <section aria-labelledby="artist-takes">
        <h2 id="artist-takes">Your takes</h2>
        {takes.error && <ErrorMessage error={takes.error} />}
        {takes.isSuccess && items.length === 0 && <p>No takes yet.</p>}
        {takes.data && items.length > 0 && (
          <p className="hint">
            {items.length} of at most {takes.data.maxTakes} takes.
          </p>
        )}
        {items.length > 0 && (
          <table className="list">
            <caption>Your takes, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Take</th>
                <th scope="col">Sent</th>
                <th scope="col">State</th>
                <th scope="col">Listen</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {items.map((take) => (
                <TakeRow key={take.fileId} token={token} take={take} deletable={deletable} />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
