import { fileURLToPath } from 'node:url';

/** Where the console's build lives: `npm start` and the image build it there, and the API serves it from there. */
export const defaultConsoleDir = fileURLToPath(new URL('../../build/console', import.meta.url));

/** The file beside the build that records which sources it was built from (src/dev/console-build.ts). */
export const consoleSourceHashFile = 'source-hash.txt';
