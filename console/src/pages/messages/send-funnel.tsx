import { formatCount, formatRate } from '../../components/format.ts';
import type { Message } from './message-queries.ts';

type Send = Message['send'];

export interface FunnelStage {
  name: string;
  count: number;
  /** The stage's share of its base; null while the base is 0 (or unknown). */
  rate: number | null;
  /** How the rate is worked out, in words and with the figures: shown on hover. */
  formula: string;
  /** A reason a device was not sent to: drawn indented, under "Not sent". */
  reason?: boolean;
}

const rateOf = (count: number, base: number | null) => (base ? count / base : null);

const formulaOf = (name: string, count: number, baseName: string, base: number | null) =>
  `${name} ÷ ${baseName} = ${formatCount(count)} ÷ ${formatCount(base)}`;

/** Why devices were not sent to, as the send counts them: each reason's count, of the audience. */
const notSentReasons: Array<[keyof Send, string, string]> = [
  ['failed', 'Failed', 'refused by the provider, or unconfirmed'],
  ['unregistered', 'Unregistered', 'the provider no longer knew the token'],
  ['skipped', 'Skipped', 'unsubscribed or deleted before their turn'],
  ['capped', 'Capped', 'over the app’s frequency cap'],
  ['quiet', 'Quiet hours', 'in the app’s quiet hours'],
  ['expired', 'Expired', 'the message expired before their time'],
  ['cancelled', 'Cancelled', 'still waiting when the send was cancelled'],
];

/** audience → sent → not sent by reason → clicked → converted, each with its count and its rate. */
export function funnelOf(send: Send): FunnelStage[] {
  const audience = send.audience;
  const sent = send.sent;
  return [
    { name: 'Audience', count: audience ?? 0, rate: audience === null ? null : 1, formula: 'devices in the segment when the send started' },
    { name: 'Sent', count: sent, rate: rateOf(sent, audience), formula: formulaOf('sent', sent, 'audience', audience) },
    ...notSentReasons.map(([key, name, why]) => {
      const count = send[key] as number;
      return { name, count, rate: rateOf(count, audience), formula: `${formulaOf(name.toLowerCase(), count, 'audience', audience)} (${why})`, reason: true };
    }),
    { name: 'Clicked', count: send.clicked, rate: send.ctr, formula: formulaOf('clicked', send.clicked, 'sent', sent) },
    { name: 'Converted', count: send.conversions, rate: send.conversionRate, formula: formulaOf('converted', send.conversions, 'sent', sent) },
  ];
}

const chartWidth = 360;
const rowHeight = 22;
const labelWidth = 110;

/** The funnel as horizontal bars, each as long as its count against the audience (or the largest count). */
function FunnelChart({ stages }: { stages: FunnelStage[] }) {
  const largest = Math.max(1, ...stages.map((stage) => stage.count));
  const barSpace = chartWidth - labelWidth - 50;
  return (
    <svg className="chart" viewBox={`0 0 ${chartWidth} ${stages.length * rowHeight}`} aria-hidden="true" focusable="false">
      {stages.map((stage, index) => (
        <g key={stage.name} transform={`translate(0 ${index * rowHeight})`}>
          <text x={stage.reason ? 12 : 0} y={15} className={stage.reason ? 'chart-label minor' : 'chart-label'}>
            {stage.name}
          </text>
          <rect x={labelWidth} y={4} height={rowHeight - 8} width={(stage.count / largest) * barSpace} className={stage.reason ? 'bar minor' : 'bar'} />
          <text x={labelWidth + (stage.count / largest) * barSpace + 4} y={15} className="chart-value">
            {formatCount(stage.count)}
          </text>
        </g>
      ))}
    </svg>
  );
}

/** The send funnel: the chart, and beside it a table of the same numbers, each rate's formula on hover. */
export function SendFunnel({ send }: { send: Send }) {
  const stages = funnelOf(send);
  return (
    <div className="chart-with-table">
      <FunnelChart stages={stages} />
      <table className="counts funnel">
        <caption>The send funnel: counts and rates (hover a rate for its formula)</caption>
        <thead>
          <tr>
            <th scope="col">Stage</th>
            <th scope="col">Count</th>
            <th scope="col">Rate</th>
          </tr>
        </thead>
        <tbody>
          {stages.map((stage) => (
            <tr key={stage.name} className={stage.reason ? 'reason' : undefined}>
              <th scope="row">{stage.reason ? `Not sent: ${stage.name.toLowerCase()}` : stage.name}</th>
              <td className="number">{formatCount(stage.count)}</td>
              <td className="number">
                <abbr title={stage.formula}>{stage.rate === null ? '—' : formatRate(stage.rate)}</abbr>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
