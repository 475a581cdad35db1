import { formatDetailPath } from '../../errors.ts';
import { pathSegments } from '../../../sandbox-safe/field-path.ts';

/** Where `path` points, in the form error details use: "$.data[0].id" under "body" is "body.data.0.id". */
export function detailPath(prefix: string, path: string): string {
  return formatDetailPath(prefix, pathSegments(path));
}
