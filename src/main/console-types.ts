import { writeFile } from 'node:fs/promises';
import { consoleTypesFile, generateConsoleTypes } from '../dev/console-types.ts';

// `npm run console:types`: writes the console's API types from the route schemas (after a route or schema changes).
await writeFile(consoleTypesFile, await generateConsoleTypes());
process.stdout.write(`wrote ${consoleTypesFile}\n`);
