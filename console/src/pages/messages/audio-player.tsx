import { useState } from 'react';
import { ErrorMessage } from '../../components/error-message.tsx';
import type { Message } from './message-queries.ts';
import { useRecordingFile } from './message-queries.ts';

const width = 600;
const height = 80;

/**
 * The file's peaks (0 to 1 of full scale) as mirrored bars, scaled to the loudest so that a quiet file shows its
 * shape (its level is in the label); the part already played in the accent colour.
 */
function Waveform({ peaks, played }: { peaks: number[]; played: number }) {
  const barWidth = width / peaks.length;
  const loudest = Math.max(...peaks);
  const scale = loudest > 0 ? 1 / loudest : 1;
  return (
    <svg className="waveform" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Waveform: ${peaks.length} peaks, the loudest at ${Math.round(loudest * 100)}% of full scale`}>
      {peaks.map((peak, index) => {
        const barHeight = Math.max(1, peak * scale * (height - 4));
        return (
          <rect
            key={index}
            className={index / peaks.length < played ? 'played' : undefined}
            x={index * barWidth}
            y={(height - barHeight) / 2}
            width={Math.max(1, barWidth - 1)}
            height={barHeight}
          />
        );
      })}
    </svg>
  );
}

/**
 * What the message plays: the browser's own player (keyboard-operable and labelled), and above it the waveform from
 * the file's 200 peaks (GET /file/get). `preload="none"`: nothing is fetched until it is played.
 */
export function AudioPlayer({ recording }: { recording: NonNullable<Message['recording']> }) {
  const file = useRecordingFile(recording.fileId);
  const [played, setPlayed] = useState(0);
  const seconds = recording.durationMs === null ? null : (recording.durationMs / 1000).toFixed(1);
  return (
    <div className="player">
      {file.data?.waveform && <Waveform peaks={file.data.waveform} played={played} />}
      {file.error && <ErrorMessage error={file.error} />}
      <audio
        controls
        preload="none"
        src={recording.url}
        aria-label="The message’s recording"
        onTimeUpdate={(event) => setPlayed(event.currentTarget.duration ? event.currentTarget.currentTime / event.currentTarget.duration : 0)}
      />
      <p className="hint">
        {seconds === null ? 'Length unknown' : `${seconds} s`}
        {recording.stockId ? ' · a stock recording' : ''}
        {recording.contentType ? ` · ${recording.contentType}` : ''}
      </p>
    </div>
  );
}
