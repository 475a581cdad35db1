export { selfTest } from './self-test.ts';
