// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * Type-aware lint for every folder, workflows/ and activities/ included: `npm test` runs it after `tsc --noEmit`
 * and before the suite. The promise rules are the point: a forgotten `await` on an activity, a workflow API or a
 * database call type-checks and fails silently at run time.
 */
const setFlagsMessage = 'Pass V8 flags when the process starts (src/main/node-flags.ts), not from inside it.';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'test/fixtures/', 'coverage/', 'build/', 'test-output/', 'console/src/api/openapi.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.cjs', 'src/main/*.js', 'test/architecture/*.cjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // A leading underscore marks a parameter a signature needs, or a property a destructuring leaves out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Many functions are async because the interface they implement is (route handlers, providers, stop hooks);
      // the promise rules above catch the real mistakes.
      '@typescript-eslint/require-await': 'off',
      // `import { type X }` alone still loads the module at run time (verbatimModuleSyntax keeps the statement).
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // A `let` read by a closure before its one assignment cannot be a `const`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // V8's flags are given when a process starts (src/main/node-flags.ts): Node documents changing them in a running
      // process as unsafe, and an isolate configured before the change keeps the old value anyway.
      'no-restricted-imports': ['error', { paths: ['node:v8', 'v8'].map((name) => ({ name, importNames: ['setFlagsFromString'], message: setFlagsMessage })) }],
      'no-restricted-properties': ['error', { property: 'setFlagsFromString', message: setFlagsMessage }],
    },
  },
  {
    // Workflow functions read as state machines: named handlers and small steps, none longer than a screen.
    files: ['workflows/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Tests read response bodies as untyped JSON and assert on them with expect(); typing every body would add
    // casts, not safety. The promise rules still hold here.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The console (console/tsconfig.json: the DOM, no Node): the Rules of React on top of the same typed rules.
    files: ['console/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // Plain-JavaScript entries (src/main/start.js) run in Node; TypeScript knows these globals from @types/node.
    files: ['src/main/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
