import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A worker that dies mid-activity is seen by the server only at the activity's heartbeat timeout, or else at its
 * startToCloseTimeout: a run then waits that long before the activity is tried elsewhere (a send stalled five
 * minutes on a read its killed worker had started, in test:cluster). So every activity that may run over a minute has
 * a heartbeat timeout, and its activity heartbeats (activities/heartbeat.ts). Local activities run in the workflow's
 * own worker and are left out; a timeout computed at run time is left to its own tests.
 */
const workflowsDir = fileURLToPath(new URL('../../workflows', import.meta.url));
const secondsPer: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };

/** The object literals holding a `startToCloseTimeout` in `source`, each with what precedes it. */
function optionObjects(source: string): Array<{ text: string; before: string }> {
  const found: Array<{ text: string; before: string }> = [];
  for (let at = source.indexOf('startToCloseTimeout:'); at !== -1; at = source.indexOf('startToCloseTimeout:', at + 1)) {
    let start = at;
    for (let depth = 0; start > 0; start--) {
      if (source[start] === '}') depth++;
      if (source[start] === '{' && depth-- === 0) break;
    }
    let end = at;
    for (let depth = 0; end < source.length; end++) {
      if (source[end] === '{') depth++;
      if (source[end] === '}' && depth-- === 0) break;
    }
    found.push({ text: source.slice(start, end + 1), before: source.slice(Math.max(0, start - 40), start) });
  }
  return found;
}

/** A literal duration ('30 seconds', '2 hours') in seconds; undefined for one computed at run time. */
function literalSeconds(options: string): number | undefined {
  const match = /startToCloseTimeout:\s*'(\d+)\s*(second|minute|hour|day)s?'/.exec(options);
  return match ? Number(match[1]) * secondsPer[match[2]!]! : undefined;
}

describe('activity timeouts', () => {
  it('give every activity that may run over a minute a heartbeat timeout', async () => {
    const files = (await readdir(workflowsDir)).filter((name) => name.endsWith('.ts'));
    const offenders: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const { text, before } of optionObjects(await readFile(join(workflowsDir, file), 'utf8'))) {
        if (before.includes('proxyLocalActivities')) continue;
        const seconds = literalSeconds(text);
        if (seconds === undefined) continue;
        checked++;
        if (seconds > 60 && !text.includes('heartbeatTimeout')) offenders.push(`${file}: ${text.replace(/\s+/g, ' ')}`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
  });
});
