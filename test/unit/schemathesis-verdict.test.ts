import { describe, expect, it } from 'vitest';
import { fuzzSeed, judgeFuzzRun } from '../support/schemathesis.ts';

// The fuzz test's verdict (test/fuzz/schemathesis.test.ts), on reports in the form schemathesis 4.32 writes them
// (`--report-json-path`, `--report-ndjson-path`), trimmed to the fields read.

const report = (failures: unknown[] = [], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ complete: true, stop_reason: 'completed', exit_code: failures.length ? 1 : 0, failures, errors: [], ...extra });
const serverError = { type: 'ServerError', code: 'ST101', title: 'Server error', severity: 'critical', count: 2, operations: ['POST /job/create'] };
const nonFatal = (type: string, message: string, label = 'GET /device/list') =>
  JSON.stringify({ NonFatalError: { id: 'e1', timestamp: 1, value: { type, message }, phase: 'coverage', label, related_to_operation: true } });
const skipHeader = nonFatal('ValueError', "urllib3.util.SKIP_HEADER only supports 'Accept-Encoding', 'Host', 'User-Agent'");
const lines = (...events: string[]) => [JSON.stringify({ Initialize: { seed: 7 } }), ...events, JSON.stringify({ EngineFinished: { stop_reason: 'completed' } })].join('\n');

describe('the fuzz run’s verdict', () => {
  it('tells a request its own HTTP client refused to send apart from the service’s answers', () => {
    // Exit code 1: schemathesis counts the refused request as an error of the run.
    const verdict = judgeFuzzRun(1, report(), lines(skipHeader));
    expect(verdict).toEqual({ failures: [], serviceErrors: [], clientErrors: [expect.objectContaining({ type: 'ValueError', label: 'GET /device/list', phase: 'coverage' })] });
  });

  it('counts an internal error of Python itself as the fuzzer’s own', () => {
    const parser = nonFatal('SystemError', 'AST constructor recursion depth mismatch (before=48, after=47)');
    expect(judgeFuzzRun(1, report(), lines(parser))).toMatchObject({ serviceErrors: [], clientErrors: [expect.objectContaining({ type: 'SystemError' })] });
  });

  it('counts a 5xx against the service, with the operations it was seen on', () => {
    expect(judgeFuzzRun(1, report([serverError]), lines()).failures).toEqual(['ST101 Server error ×2: POST /job/create']);
  });

  it('counts a request the service did not answer against it, and an error nobody has classified yet', () => {
    const reset = nonFatal('ConnectionError', "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))");
    const timeout = nonFatal('ReadTimeout', 'Read timed out. (read timeout=10.0)');
    const unknown = nonFatal('SomethingNew', 'never seen before');
    const verdict = judgeFuzzRun(1, report(), lines(reset, skipHeader, timeout, unknown));
    expect(verdict.serviceErrors.map((error) => error.type)).toEqual(['ConnectionError', 'ReadTimeout', 'SomethingNew']);
    expect(verdict.clientErrors).toHaveLength(1);
  });

  it('calls a run incomplete when schemathesis stopped, crashed or failed to start', () => {
    expect(judgeFuzzRun(1, report([], { complete: false, stop_reason: 'interrupted' }), lines()).incomplete).toMatch(/interrupted/);
    expect(judgeFuzzRun(2, report(), lines()).incomplete).toMatch(/exit code 2/);
    const fatal = JSON.stringify({ FatalError: { exception: { type: 'HookExecutionError', message: 'the hook raised' } } });
    expect(judgeFuzzRun(1, report(), lines(fatal)).incomplete).toBe('HookExecutionError: the hook raised');
    expect(judgeFuzzRun(0, report(), lines())).toEqual({ failures: [], serviceErrors: [], clientErrors: [] });
  });
});

describe('the fuzz run’s seed', () => {
  it('is FUZZ_SEED when given, to replay a run, and a fresh one otherwise', () => {
    expect(fuzzSeed('123456789')).toBe(123456789);
    expect(fuzzSeed(undefined)).toEqual(expect.any(Number));
    expect(fuzzSeed('')).not.toBe(fuzzSeed(''));
    expect(() => fuzzSeed('0x1f')).toThrow(/FUZZ_SEED must be a whole number/);
  });
});
