import { resolve } from 'node:path';
import { buildConsole } from '../dev/console-build.ts';
import { defaultConsoleDir } from '../http/console-files.ts';

// `npm run build:console`: builds the console into build/console, always (the image runs it once; `npm start` builds
// only when the sources changed).
const started = performance.now();
await buildConsole(process.argv[2] === undefined ? defaultConsoleDir : resolve(process.argv[2]));
process.stdout.write(`console built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
