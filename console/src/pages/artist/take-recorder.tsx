import { useRef, useState } from 'react';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useUploadTake } from './artist-takes.ts';
import { recordingAsWav } from './wav.ts';

type RecorderState = { step: 'idle' } | { step: 'recording'; since: number } | { step: 'preparing' } | { step: 'failed'; message: string };

const stampedName = () => `recording-${new Date().toISOString().replace(/[:.]/g, '-')}.wav`;

/** Why the microphone could not be used, in words the artist can act on. */
function microphoneProblem(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError') return 'The browser was not allowed to use the microphone: allow it for this page and try again.';
  if (name === 'NotFoundError') return 'No microphone was found.';
  return `The microphone could not be used: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Record a take in the browser (MediaRecorder) and upload it as WAV: the browser's own recording format (WebM in
 * Chromium) is decoded and written again as WAV, which the service takes from every browser.
 */
export function TakeRecorder({ token }: { token: string }) {
  const upload = useUploadTake(token);
  const [state, setState] = useState<RecorderState>({ step: 'idle' });
  const recorder = useRef<MediaRecorder | undefined>(undefined);

  if (typeof MediaRecorder === 'undefined' || !navigator.mediaDevices) return <p className="hint">This browser cannot record: upload a file instead.</p>;

  const start = async () => {
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const chunks: Blob[] = [];
      const media = new MediaRecorder(stream);
      media.ondataavailable = (event) => chunks.push(event.data);
      media.onstop = () => {
        stream.getTracks().forEach((track) => track.stop());
        setState({ step: 'preparing' });
        recordingAsWav(new Blob(chunks, { type: media.mimeType }))
          .then((audio) => upload.mutateAsync({ fileName: stampedName(), audio }))
          .then(
            () => setState({ step: 'idle' }),
            (error: unknown) => setState({ step: 'failed', message: error instanceof Error ? error.message : String(error) }),
          );
      };
      recorder.current = media;
      media.start();
      setState({ step: 'recording', since: Date.now() });
    } catch (error) {
      setState({ step: 'failed', message: microphoneProblem(error) });
    }
  };

  return (
    <div className="take-form">
      {state.step === 'recording' ? (
        <button type="button" onClick={() => recorder.current?.stop()}>
          Stop and upload
        </button>
      ) : (
        <button type="button" onClick={() => void start()} disabled={state.step === 'preparing' || upload.isPending}>
          Record
        </button>
      )}
      <span role="status" className="hint">
        {state.step === 'recording' ? 'Recording… press Stop when done.' : state.step === 'preparing' ? 'Uploading the recording…' : ''}
      </span>
      {state.step === 'failed' && <ErrorMessage error={new Error(state.message)} />}
    </div>
  );
}
