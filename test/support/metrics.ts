import { until } from './wait.ts';

/** One sample of a Prometheus text exposition: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (the subset prom-client and the Temporal SDK write: no timestamps, no escapes in names). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** GETs a /metrics URL: its status, raw text and parsed samples. */
export async function scrape(url: string): Promise<{ status: number; contentType: string | null; text: string; samples: Sample[] }> {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), text, samples: response.ok ? parseMetrics(text) : [] };
}

/** Scrapes until `predicate` holds on the samples (a counter moves after the work it counts is visible elsewhere). */
export async function waitForMetrics(url: string, predicate: (samples: Sample[]) => boolean, timeoutMs = 20_000): Promise<Sample[]> {
  // A failed scrape counts as no match yet; on timeout the last scrape's text (or error) is shown.
  const scrapeOrError = () => scrape(url).catch((error: unknown) => ({ samples: [] as Sample[], text: String(error) }));
  const { samples } = await until(`the metrics at ${url} to match`, scrapeOrError, (scraped) => predicate(scraped.samples), {
    timeoutMs,
    show: (last) => `\n${last.text}`,
  });
  return samples;
}
