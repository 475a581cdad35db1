import { Link } from 'wouter';
import { formatCount } from '../../components/format.ts';
import type { AbTestWithResults, Arm, AbTestResults } from './abtest-queries.ts';

/** A rate as a percentage to two decimals: the same figure in the chart's labels, the table and the tests. */
export const formatPercent = (value: number | null | undefined) => (value == null ? '—' : `${(value * 100).toFixed(2)}%`);

export const formatInterval = (interval: readonly number[] | null | undefined) =>
  interval ? `${formatPercent(interval[0])} to ${formatPercent(interval[1])}` : '—';

/** The figures the test is decided by: clicks and CTR, or conversions and conversion rate. */
export function metricOf(arm: Arm, metric: AbTestResults['metric']) {
  return metric === 'conversion'
    ? { successes: arm.conversions, rate: arm.conversionRate, interval: arm.conversionRateInterval95, name: 'Conversions', rateName: 'Conversion rate' }
    : { successes: arm.clicks, rate: arm.ctr, interval: arm.ctrInterval95, name: 'Clicks', rateName: 'CTR' };
}

const width = 460;
const rowHeight = 44;
const left = 40;

/** Each arm's rate as a dot and its 95% interval as whiskers, on one scale from 0. */
function Whiskers({ results }: { results: AbTestResults }) {
  const arms = (['A', 'B'] as const).map((armName) => ({ ...metricOf(results.arms[armName], results.metric), name: armName }));
  const top = Math.max(0.01, ...arms.map((arm) => arm.interval?.[1] ?? arm.rate ?? 0)) * 1.1;
  const x = (value: number) => left + (value / top) * (width - left - 20);
  return (
    <svg className="chart" viewBox={`0 0 ${width} ${rowHeight * 2 + 24}`} aria-hidden="true" focusable="false">
      <line x1={left} y1={rowHeight * 2} x2={width - 20} y2={rowHeight * 2} className="axis" />
      <text x={left} y={rowHeight * 2 + 16} className="chart-label">0%</text>
      <text x={width - 20} y={rowHeight * 2 + 16} className="chart-label end">{formatPercent(top)}</text>
      {arms.map((arm, index) => {
        const y = index * rowHeight + rowHeight / 2;
        return (
          <g key={arm.name} className={`arm arm-${arm.name}`}>
            <text x={0} y={y + 5} className="chart-label">{arm.name}</text>
            {arm.interval?.length === 2 && (
              <>
                <line x1={x(arm.interval[0]!)} x2={x(arm.interval[1]!)} y1={y} y2={y} className="whisker" />
                <line x1={x(arm.interval[0]!)} x2={x(arm.interval[0]!)} y1={y - 8} y2={y + 8} className="whisker" />
                <line x1={x(arm.interval[1]!)} x2={x(arm.interval[1]!)} y1={y - 8} y2={y + 8} className="whisker" />
              </>
            )}
            {arm.rate !== null && <circle cx={x(arm.rate)} cy={y} r={5} className="rate-dot" />}
          </g>
        );
      })}
    </svg>
  );
}

/** The arms side by side: the chart, and a table of the same numbers. */
export function ArmsChart({ test, results }: { test: AbTestWithResults; results: AbTestResults }) {
  const messages = { A: test.templateIdA, B: test.templateIdB };
  const { name, rateName } = metricOf(results.arms.A, results.metric);
  return (
    <div className="chart-with-table">
      <Whiskers results={results} />
      <table className="counts arms">
        <caption>The arms: {rateName} with its 95% interval (Wilson)</caption>
        <thead>
          <tr>
            <th scope="col">Arm</th>
            <th scope="col">Devices</th>
            <th scope="col">Sent (n)</th>
            <th scope="col">Failed</th>
            <th scope="col">{name}</th>
            <th scope="col">{rateName}</th>
            <th scope="col">95% interval</th>
          </tr>
        </thead>
        <tbody>
          {(['A', 'B'] as const).map((armName) => {
            const arm = results.arms[armName];
            const figures = metricOf(arm, results.metric);
            const message = messages[armName];
            return (
              <tr key={armName}>
                <th scope="row">{message ? <Link href={`/messages/${message}`}>{armName}</Link> : armName}</th>
                <td className="number">{formatCount(arm.devices)}</td>
                <td className="number">{formatCount(arm.sent)}</td>
                <td className="number">{formatCount(arm.failed)}</td>
                <td className="number">{formatCount(figures.successes)}</td>
                <td className="number">
                  <abbr title={`${name.toLowerCase()} ÷ sent = ${formatCount(figures.successes)} ÷ ${formatCount(arm.sent)}`}>{formatPercent(figures.rate)}</abbr>
                </td>
                <td className="number">{formatInterval(figures.interval)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
