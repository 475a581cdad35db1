/**
 * The console's waveform: the delivery file's decoded samples (32-bit float, mono) cut into `points` equal spans,
 * each given its highest absolute sample, from 0 (silence) to 1 (full scale), to three decimals.
 */
export function waveformCollector(points: number) {
  // The peak of each block of 32 samples is kept as the audio streams by (a 120 s take makes 165,000 of them), and
  // the blocks are grouped into points once the length is known.
  const blockSamples = 32;
  const blockPeaks: number[] = [];
  let blockPeak = 0;
  let inBlock = 0;
  let samples = 0;
  let carry = Buffer.alloc(0);

  return {
    push(chunk: Buffer): void {
      const bytes = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const whole = bytes.length - (bytes.length % 4);
      for (let offset = 0; offset < whole; offset += 4) {
        blockPeak = Math.max(blockPeak, Math.abs(bytes.readFloatLE(offset)));
        if (++inBlock === blockSamples) {
          blockPeaks.push(blockPeak);
          blockPeak = 0;
          inBlock = 0;
        }
      }
      samples += whole / 4;
      carry = Buffer.from(bytes.subarray(whole));
    },
    /** The points, and how many samples went by. */
    finish(): { peaks: number[]; samples: number } {
      if (inBlock > 0) blockPeaks.push(blockPeak);
      const blocks = blockPeaks.length;
      const peaks = Array.from({ length: blocks === 0 ? 0 : points }, (_, point) => {
        const from = Math.floor((point * blocks) / points);
        const to = Math.max(from + 1, Math.floor(((point + 1) * blocks) / points));
        let peak = 0;
        for (let block = from; block < to; block++) peak = Math.max(peak, blockPeaks[block] ?? 0);
        return Math.round(Math.min(1, peak) * 1000) / 1000;
      });
      return { peaks, samples };
    },
  };
}
