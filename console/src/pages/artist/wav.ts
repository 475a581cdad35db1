/**
 * Audio as a 16-bit PCM WAV file, mixed down to mono: the one format every browser can make and the service accepts
 * (a browser's recorder writes WebM in Chromium, which the service does not take). 120 s at 48 kHz is about 11 MB.
 */
export function encodeWav(buffer: AudioBuffer): Blob {
  const samples = mixDown(buffer);
  const bytes = new ArrayBuffer(44 + samples.length * 2);
  const view = new DataView(bytes);
  const text = (offset: number, value: string) => [...value].forEach((char, index) => view.setUint8(offset + index, char.charCodeAt(0)));
  text(0, 'RIFF');
  view.setUint32(4, 36 + samples.length * 2, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true); // the fmt chunk's size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // one channel
  view.setUint32(24, buffer.sampleRate, true);
  view.setUint32(28, buffer.sampleRate * 2, true); // bytes a second
  view.setUint16(32, 2, true); // bytes a frame
  view.setUint16(34, 16, true); // bits a sample
  text(36, 'data');
  view.setUint32(40, samples.length * 2, true);
  samples.forEach((sample, index) => view.setInt16(44 + index * 2, Math.max(-1, Math.min(1, sample)) * 0x7fff, true));
  return new Blob([bytes], { type: 'audio/wav' });
}

function mixDown(buffer: AudioBuffer): Float32Array {
  const mono = new Float32Array(buffer.length);
  for (let channel = 0; channel < buffer.numberOfChannels; channel++) {
    const data = buffer.getChannelData(channel);
    for (let index = 0; index < data.length; index++) mono[index]! += data[index]! / buffer.numberOfChannels;
  }
  return mono;
}

/** A recorder's output (WebM, Ogg or MP4, whatever the browser writes) decoded by the browser and written as WAV. */
export async function recordingAsWav(recording: Blob): Promise<Blob> {
  const context = new AudioContext();
  try {
    return encodeWav(await context.decodeAudioData(await recording.arrayBuffer()));
  } finally {
    void context.close();
  }
}
