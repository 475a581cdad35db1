import { useId, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useUploadTake } from './artist-takes.ts';

/** Upload a take from a file: WAV, AIFF, MP3, M4A/AAC, FLAC or Ogg; the service checks it by its bytes. */
export function TakeUpload({ token }: { token: string }) {
  const upload = useUploadTake(token);
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<File | undefined>();
  // The button stays enabled (a disabled one is out of the keyboard's reach): sending nothing says what is missing.
  const [missing, setMissing] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!chosen) {
      setMissing(true);
      return;
    }
    upload.mutate(
      { fileName: chosen.name, audio: chosen },
      {
        onSuccess: () => {
          setChosen(undefined);
          if (input.current) input.current.value = '';
        },
      },
    );
  };
  return (
    <form className="take-form" onSubmit={submit}>
      <label htmlFor={inputId}>Audio file</label>
      <input id={inputId} ref={input} type="file" accept="audio/*,.wav,.aif,.aiff,.mp3,.m4a,.aac,.flac,.ogg,.opus" onChange={(event) => {
          setChosen(event.target.files?.[0]);
          setMissing(false);
        }}
      />
      <button type="submit" disabled={upload.isPending}>
        {upload.isPending ? 'Uploading…' : 'Upload'}
      </button>
      <span role="status" className="hint">
        {missing ? 'Choose an audio file first.' : upload.isSuccess ? `Uploaded ${upload.data.fileName ?? 'the take'}: it is being checked.` : ''}
      </span>
      {upload.error && <ErrorMessage error={upload.error} />}
    </form>
  );
}
