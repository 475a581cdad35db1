// Connections name fields of a payload with dot paths ("data.items.0.sku"). Operators often copy JSONPath from
// other tools, so a leading "$." and bracketed indexes ("$.data.items[0].sku") are accepted too. Keys that
// themselves contain a dot cannot be addressed; no payload we have met needs that.

const arrayIndex = /^(0|[1-9][0-9]*)$/;

/** The steps of a path; "" and "$" are the payload itself. */
export function pathSegments(path: string): string[] {
  const dotted = path.replace(/\[(\d+)\]/g, '.$1');
  const relative = dotted === '$' ? '' : dotted.startsWith('$.') ? dotted.slice(2) : dotted;
  return relative === '' ? [] : relative.split('.');
}

/** The value at `path`, or undefined when any step is missing. */
export function readPath(value: unknown, path: string): unknown {
  return readSegments(value, pathSegments(path));
}

/**
 * The value at these steps, or undefined when any step is missing: a step into an array is an index. Pure (no
 * Node APIs), because workflow code reads experience fields with it too.
 */
export function readSegments(value: unknown, segments: readonly string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      if (!arrayIndex.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null) {
      // Own keys only: "constructor" or "__proto__" must not reach into Object.prototype.
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}
