import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadEmbeddedConfig, requiredSettings, type Role } from '../../src/config.ts';

// The README's configuration table is checked against src/config.ts, so that the two cannot drift apart: every
// setting the service parses has a row, every row names a real setting, and the defaults and "Required by" agree.
// The settings come from src/config.ts itself: its text names them, and its exported loaders confirm each name at
// run time (a name is a setting when a loader refuses a bad value for it).

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Rows for variables that src/config.ts does not parse, and the file that reads each. Keep this list small. */
const readElsewhere: Record<string, string> = {
  TEMPORAL_CLI_PATH: 'src/dev/cli-path.ts',
  TEMPORAL_TEST_SERVER_PATH: 'src/dev/cli-path.ts',
  XDG_CACHE_HOME: 'src/dev/cli-path.ts',
  FFMPEG_PATH: 'src/media/find-ffmpeg.ts',
  SEAWEEDFS_PATH: 'src/dev/cli-path.ts',
  CHROMIUM_PATH: 'src/dev/chromium.ts',
  HELM_PATH: 'src/dev/cli-path.ts',
  HADOLINT_PATH: 'src/dev/cli-path.ts',
  KUBERNETES_VALIDATE_PATH: 'src/dev/cli-path.ts',
};

/** Settings with no default in src/config.ts whose default the code derives elsewhere, and the file that does. */
const derivedDefaults: Record<string, string> = {
  TEMPORAL_INTERACTIVE_TASK_QUEUE: 'src/service/compose.ts',
};

/** Values for the settings the production roles require, so that each role parses and shows its defaults. */
const requiredValues: Record<string, string> = {
  DATABASE_URL: 'postgres://user:password@db:5432/app',
  TEMPORAL_ADDRESS: 'temporal:7233',
  ADMIN_TOKEN: 'a'.repeat(32),
  SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
  PUBLIC_URL: 'https://push.example.com',
  WORKER_DEPLOYMENT_NAME: 'richpush',
  WORKER_BUILD_ID: '0.2.0',
};

const roles: Role[] = ['api', 'worker', 'migrate', 'promote'];
const productionLoaders: Array<(env: NodeJS.ProcessEnv) => object> = [
  (env) => loadConfig('api', env),
  (env) => loadConfig('worker', env),
  (env) => loadConfig('migrate', env),
  (env) => loadConfig('promote', env),
];
const loaders = [...productionLoaders, (env: NodeJS.ProcessEnv): object => loadEmbeddedConfig(env)];

/** Whether some loader parses `name`: a value no schema accepts (an object) is then refused by name. */
function isSetting(name: string): boolean {
  const refusedByName = new RegExp(`(?:^Configuration error: |; )${name} is invalid`);
  return loaders.some((load) => {
    try {
      load({ ...requiredValues, [name]: {} as unknown as string });
      return false;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return refusedByName.test(error.message);
    }
  });
}

/** Every default the loaders fill in when nothing is set, by setting name. */
function zodDefaults(): Map<string, unknown> {
  const defaults = new Map<string, unknown>();
  const parsed = [...productionLoaders.map((load) => load(requiredValues)), loadEmbeddedConfig({})];
  for (const config of parsed) {
    for (const [name, value] of Object.entries(config)) {
      if (name in requiredValues) continue;
      if (defaults.has(name) && defaults.get(name) !== value) throw new Error(`${name} has two defaults: ${String(defaults.get(name))} and ${String(value)}`);
      defaults.set(name, value);
    }
  }
  return defaults;
}

/** The names src/config.ts gives its settings: the keys of its schema objects (`NAME: z…`, `NAME: port…`). */
function settingNamesInConfigSource(): string[] {
  const names = [...read('src/config.ts').matchAll(/^\s+([A-Z][A-Z0-9_]*)\s*:/gm)].map((match) => match[1] ?? '');
  return [...new Set(names)].sort();
}

interface Row {
  name: string;
  defaultCell: string;
  requiredBy: string;
}

/** The rows of the README's configuration table. */
function readmeRows(readme = read('README.md')): Row[] {
  const start = readme.indexOf('\n## Configuration');
  if (start < 0) throw new Error('README.md has no "## Configuration" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[1] ?? '')?.[1];
      if (!name) throw new Error(`README.md: a configuration row does not start with a variable: ${line}`);
      return { name, defaultCell: cells[2] ?? '', requiredBy: cells[3] ?? '' };
    });
}

/** A default cell that states one value (`3000`), rather than describing one (`<TEMPORAL_TASK_QUEUE>-interactive`). */
const literalDefault = (cell: string) => /^`([^`<>\s]+)`$/.exec(cell)?.[1];

describe('the README configuration table against src/config.ts', () => {
  const settings = settingNamesInConfigSource();
  const rows = readmeRows();
  const rowNames = rows.map((row) => row.name);

  it('reads the setting names from src/config.ts, and the loaders confirm each one', () => {
    expect(settings.length).toBeGreaterThan(30);
    expect(settings.filter((name) => !isSetting(name))).toEqual([]);
    // The loaders know no setting that the text search missed.
    const known = new Set([...zodDefaults().keys(), ...roles.flatMap((role) => requiredSettings(role))]);
    expect([...known].filter((name) => !settings.includes(name))).toEqual([]);
    // The probe itself tells a setting from a name no schema has.
    expect(isSetting('NOT_A_SETTING_OF_THIS_SERVICE')).toBe(false);
  });

  it('has one row per variable', () => {
    expect(rowNames.filter((name, index) => rowNames.indexOf(name) !== index)).toEqual([]);
  });

  it('has a row for every setting in src/config.ts', () => {
    expect(settings.filter((name) => !rowNames.includes(name))).toEqual([]);
  });

  it('names only real settings, or variables read in the file listed for them', () => {
    const unknown = rowNames.filter((name) => !settings.includes(name) && !(name in readElsewhere));
    expect(unknown, 'README rows that name no setting of src/config.ts').toEqual([]);
    for (const [name, file] of Object.entries(readElsewhere)) {
      expect(rowNames, `${name} is listed as read elsewhere but has no README row`).toContain(name);
      expect(settings, `${name} is parsed by src/config.ts now: drop it from readElsewhere`).not.toContain(name);
      expect(read(file), `${file} should read ${name}`).toContain(name);
    }
  });

  it('gives the defaults of src/config.ts', () => {
    const defaults = zodDefaults();
    const wrong: string[] = [];
    for (const row of rows) {
      if (row.name in readElsewhere) continue;
      const stated = literalDefault(row.defaultCell);
      if (defaults.has(row.name)) {
        const actual = String(defaults.get(row.name));
        if (stated !== actual) wrong.push(`${row.name}: README says ${row.defaultCell || '(nothing)'}, src/config.ts \`${actual}\``);
      } else if (stated !== undefined && !(row.name in derivedDefaults)) {
        wrong.push(`${row.name}: README says ${row.defaultCell}, src/config.ts has no default`);
      }
    }
    expect(wrong).toEqual([]);
    for (const [name, file] of Object.entries(derivedDefaults)) {
      expect(defaults.has(name), `${name} has a default in src/config.ts now: drop it from derivedDefaults`).toBe(false);
      expect(read(file), `${file} should derive the default of ${name}`).toContain(name);
    }
  });

  it('says which roles require each setting, as requiredSettings() does', () => {
    for (const role of roles) {
      // A cell with a condition ("worker, start when PUSH_PROVIDER=fcm") is a conditional requirement, not this one.
      const listed = rows
        .filter((row) => !/\bwhen\b/.test(row.requiredBy))
        .filter((row) => row.requiredBy.split(/[,\s]+/).includes(role))
        .map((row) => row.name)
        .sort();
      expect(listed, `"Required by" ${role}`).toEqual(requiredSettings(role));
    }
  });

  it('would fail on a missing row and on a row that names no setting', () => {
    const readme = read('README.md');
    const missing = (text: string) => settings.filter((name) => !readmeRows(text).some((row) => row.name === name));
    const strangers = (text: string) => readmeRows(text).map((row) => row.name).filter((name) => !settings.includes(name) && !(name in readElsewhere));
    const sample = rows.find((row) => settings.includes(row.name))?.name ?? 'PORT';
    const rowOf = new RegExp(`^\\| \`${sample}\` \\|.*\\n`, 'm');
    const withoutSample = readme.replace(rowOf, '');
    expect(missing(withoutSample).filter((name) => !missing(readme).includes(name))).toEqual([sample]);
    const withFake = readme.replace(rowOf, (row) => `${row}| \`NO_SUCH_SETTING\` | \`1\` | | api. |\n`);
    expect(strangers(withFake).filter((name) => !strangers(readme).includes(name))).toEqual(['NO_SUCH_SETTING']);
  });
});
