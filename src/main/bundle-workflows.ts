import { createLogger } from '../logger.ts';
import { writeWorkflowBundle } from '../temporal/workflow-bundle.ts';

// `npm run bundle:workflows -- <file>`: the workflow bundle a worker loads with WORKFLOW_BUNDLE_PATH=<file>. The image
// builds it once (Dockerfile), so its workers start without webpack.
const [path] = process.argv.slice(2);
if (path === undefined) {
  process.stderr.write('usage: npm run bundle:workflows -- <output file>\n');
  process.exit(2);
}
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', 'bundle-workflows');
const bytes = await writeWorkflowBundle(path, logger);
process.stdout.write(`workflow bundle written to ${path} (${Math.round(bytes / 1024)} KiB)\n`);
