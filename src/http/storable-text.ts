import { formatDetailPath, validationFailed, type ErrorDetail } from '../domain/errors.ts';

// Every string of a request is stored somewhere: Postgres `text` and `jsonb` columns, Temporal ids and search
// attributes. Postgres cannot hold U+0000 in either, and `jsonb` refuses a lone UTF-16 surrogate (which JSON.parse
// makes from an escape such as "\ud800"; such a string is not Unicode text). Both are refused here, at the edge, in
// every string anywhere in the input, keys included, so they answer 400 instead of failing deep inside a write.
// Invalid UTF-8 bytes are not refused: decoding has already made them U+FFFD, which stores fine.

/** Nesting beyond this is refused: Postgres and recursive code further on run out of stack long before 10,000 levels. */
export const maxInputDepth = 32;

/** The pattern the OpenAPI document gives every request string; a lone surrogate needs none, as UTF-8 cannot encode it. */
export const nulFreePattern = '^[^\\u0000]*$';

/** At most this many details, so a body full of bad strings does not make an answer as large as itself. */
const maxDetails = 20;

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains U+0000 (NUL), which cannot be stored';
  if (!text.isWellFormed()) return 'contains a lone UTF-16 surrogate (\\ud800 to \\udfff outside a pair), which is not valid Unicode';
  return undefined;
}

interface Step {
  value: unknown;
  key: string | number | undefined;
  parent: Step | undefined;
  depth: number;
}

function stepsTo(step: Step | undefined): Array<string | number> {
  const steps: Array<string | number> = [];
  for (let at = step; at?.key !== undefined; at = at.parent) steps.push(at.key);
  return steps.reverse();
}

/**
 * What in `value` (a parsed body, query or params) cannot be stored, each named by its path under `place`. Walks
 * with its own stack, in document order, so a deeply nested body cannot exhaust the call stack.
 */
export function unstorableText(value: unknown, place: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const report = (step: Step, message: string) => details.push({ path: formatDetailPath(place, stepsTo(step)), message });
  const pending: Step[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (pending.length > 0 && details.length < maxDetails) {
    const step = pending.pop()!;
    const keyProblem = typeof step.key === 'string' ? textProblem(step.key) : undefined;
    if (keyProblem) report(step, `this key ${keyProblem}`);
    if (typeof step.value === 'string') {
      const problem = textProblem(step.value);
      if (problem) report(step, problem);
    } else if (typeof step.value === 'object' && step.value !== null) {
      if (step.depth >= maxInputDepth) {
        report(step, `nests more than ${maxInputDepth} levels deep`);
        continue;
      }
      const entries = Array.isArray(step.value) ? [...step.value.entries()] : Object.entries(step.value);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        pending.push({ value: child, key, parent: step, depth: step.depth + 1 });
      }
    }
  }
  return details.slice(0, maxDetails);
}

/** Refuses `value` with 400 `validation_failed` when any string or key in it cannot be stored. */
export function assertStorableText(value: unknown, place: string): void {
  const details = unstorableText(value, place);
  if (details.length > 0) throw validationFailed(details);
}
