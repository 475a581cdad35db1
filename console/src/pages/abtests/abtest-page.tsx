import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatClock, formatCount, formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { isTestLive, significanceOf, srmOf, useAbTest, type AbTestResults, type AbTestWithResults } from './abtest-queries.ts';
import { ArmsChart, formatInterval, formatPercent, metricOf } from './arms-chart.tsx';
import { StateTimeline } from './state-timeline.tsx';

const testNames = { 'two-proportion-z': 'Two-proportion z-test', 'fisher-exact': 'Fisher’s exact test' };

/** A figure and its value, as a row of a definition list. */
const Figure = ({ name, children }: { name: string; children: ReactNode }) => (
  <div>
    <dt>{name}</dt>
    <dd>{children}</dd>
  </div>
);

/** B against A: the difference with its interval, the relative lift, and the test that judged it. */
function Comparison({ results }: { results: AbTestResults }) {
  const significance = significanceOf(results);
  const { rate: rateA, rateName } = metricOf(results.arms.A, results.metric);
  const rateB = metricOf(results.arms.B, results.metric).rate;
  const difference = rateA !== null && rateB !== null ? rateB - rateA : null;
  // The lift's interval is the difference's divided by A's rate, which treats A's rate as exact: an approximation.
  const liftInterval = significance.ci95 && rateA ? ([significance.ci95[0] / rateA, significance.ci95[1] / rateA] as [number, number]) : null;
  return (
    <dl className="fields">
      <Figure name={`Difference in ${rateName}, B − A`}>
        {formatPercent(difference)} · 95% interval {significance.ci95 ? formatInterval(significance.ci95) : '— (none with Fisher’s exact test)'}
      </Figure>
      <Figure name="Lift, (B − A) ÷ A">
        <abbr title="(rate B − rate A) ÷ rate A; its interval is the difference’s divided by rate A">{formatPercent(significance.lift)}</abbr>
        {liftInterval && <> · 95% interval {formatInterval(liftInterval)}</>}
      </Figure>
      <Figure name="Test">{testNames[significance.test]}</Figure>
      <Figure name="p-value">
        {significance.pValue.toPrecision(3)} · {significance.significant ? 'significant (p < 0.05)' : 'not significant (p ≥ 0.05)'}
        {significance.z !== undefined && <> · z = {significance.z.toFixed(2)}</>}
      </Figure>
    </dl>
  );
}

/** The SRM check, as a banner only when it fails: then the split is not what was assigned, and the result is not to be trusted. */
function SrmBanner({ results }: { results: AbTestResults }) {
  const srm = srmOf(results);
  if (!srm.mismatch) return null;
  return (
    <div role="alert" className="error banner">
      <p>
        <strong>Sample ratio mismatch:</strong> A got {formatCount(results.arms.A.sent)} pushes and B {formatCount(results.arms.B.sent)}, not the 50/50 split
        assigned (χ² = {srm.chiSquare?.toFixed(2)}, p = {srm.pValue?.toPrecision(3)}). Pushes were lost unevenly: do not trust this result.
      </p>
    </div>
  );
}

function Decision({ test, results }: { test: AbTestWithResults; results: AbTestResults }) {
  const srm = srmOf(results);
  const winnerMessage = results.winner === 'A' ? test.templateIdA : results.winner === 'B' ? test.templateIdB : null;
  return (
    <dl className="fields">
      <Figure name="Decided by">{results.metric === 'conversion' ? 'Conversion rate' : 'Click-through rate'}</Figure>
      <Figure name="Winner">
        {results.winner ?? 'none'}
        {results.provisional ? ' (provisional: not decided yet)' : ''}
      </Figure>
      <Figure name="Decided">{formatTime(results.decidedAt)}</Figure>
      <Figure name="Sample ratio check">{srm.reason ?? (srm.mismatch ? 'mismatch' : `passed (p = ${srm.pValue?.toPrecision(3)})`)}</Figure>
      <Figure name="Remainder’s send">
        {formatCount(results.remainder.sent)} of {formatCount(results.remainder.devices)} devices sent
        {winnerMessage && (
          <>
            {' '}
            · <Link href={`/messages/${winnerMessage}`}>the winner’s message</Link>
          </>
        )}
      </Figure>
      {test.failureReason && <Figure name="Why it failed">{test.failureReason}</Figure>}
    </dl>
  );
}

function AbTestDetail({ test, readAt }: { test: AbTestWithResults; readAt: number }) {
  const { results } = test;
  return (
    <>
      <h1>{test.abTestName}</h1>
      {test.description && <p>{test.description}</p>}
      {results && <SrmBanner results={results} />}
      <StateTimeline test={test} />
      <p className="hint" aria-live="polite">
        As of {formatClock(readAt)}
        {isTestLive(test.state) ? ' · live, read every 2 s' : ''} · {test.testPercent}% of the segment in the test
        {test.audience ? `, ${formatCount(test.audience.devices)} devices in all` : ''}
      </p>
      {!results && <p>No results yet: the test has not run.</p>}
      {results && (
        <>
          <section aria-labelledby="abtest-arms">
            <h2 id="abtest-arms">Arms</h2>
            <ArmsChart test={test} results={results} />
            <Comparison results={results} />
          </section>
          <section aria-labelledby="abtest-decision">
            <h2 id="abtest-decision">Decision</h2>
            <Decision test={test} results={results} />
          </section>
        </>
      )}
      <CopyAsCurl request={{ method: 'GET', path: `/abtest/get?id=${test.id}` }} />
    </>
  );
}

export default function AbTestPage({ id }: { id: string }) {
  const test = useAbTest(id);
  useDocumentTitle(test.data?.abTestName ?? 'A/B test');
  return (
    <>
      <p>
        <Link href="/abtests">← A/B tests</Link>
      </p>
      {test.error && <ErrorMessage error={test.error} />}
      {test.isPending && <p role="status">Loading the A/B test…</p>}
      {test.data && <AbTestDetail test={test.data} readAt={test.dataUpdatedAt} />}
    </>
  );
}
