import { readFileSync } from 'node:fs';
import type { InboundEnvelope, NormaliseResult } from '../../../src/domain/ingest/normalise/index.ts';

// Provider payloads live as JSON under test/fixtures/providers, shaped like what each provider really sends.
// Every call reads the file afresh, so a test can change its copy without touching anyone else's.

export type Payload = Record<string, unknown>;

export function payload(name: string): Payload {
  return JSON.parse(readFileSync(new URL(`../../fixtures/providers/${name}.json`, import.meta.url), 'utf8')) as Payload;
}

/**
 * A fixture with some fields changed, each named by a dot path: `{ 'context.traits.email': 'x' }`.
 * `undefined` removes the field, which is how tests say "the sender left this out".
 */
export function changed(name: string | Payload, changes: Record<string, unknown>): Payload {
  const copy = typeof name === 'string' ? payload(name) : structuredClone(name);
  for (const [path, value] of Object.entries(changes)) {
    const steps = path.split('.');
    const last = steps.pop() as string;
    let parent: Record<string, unknown> = copy;
    for (const step of steps) {
      parent[step] ??= {};
      parent = parent[step] as Record<string, unknown>;
    }
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return copy;
}

/** The moment requests "arrive" in these tests: far from every fixture's own timestamps, so a fallback shows. */
export const now = new Date('2026-06-15T12:00:00.000Z');
export const nowIso = now.toISOString();

/** The events of a successful result; a failure throws with its details, which is the message a test wants to see. */
export function eventsOf(result: NormaliseResult): InboundEnvelope[] {
  if (!result.ok) throw new Error(`expected events, got details: ${JSON.stringify(result.details)}`);
  return result.events;
}

export function onlyEvent(result: NormaliseResult): InboundEnvelope {
  const events = eventsOf(result);
  const [event] = events;
  if (event === undefined || events.length !== 1) throw new Error(`expected one event, got ${events.length}`);
  return event;
}
