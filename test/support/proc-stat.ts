import { readFile } from 'node:fs/promises';

/**
 * The fields of a /proc `stat` file (`/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat`) after the command name,
 * which may hold spaces: [0] is field 3 (state), [3] field 6 (session), [16] field 19 (niceness).
 */
export async function procStatFields(path: string): Promise<string[]> {
  const stat = await readFile(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
