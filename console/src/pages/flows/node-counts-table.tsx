import { formatCount } from '../../components/format.ts';
import type { NodeCounts } from './flow-queries.ts';

const columns = [
  ['entered', 'Entered', 'Runs that reached the node'],
  ['waiting', 'Waiting here', 'Live runs at the node now'],
  ['passed', 'Passed', 'Runs that left the node'],
  ['stoppedHere', 'Stopped here', 'Runs that ended at the node without leaving it'],
  ['goalReached', 'Goal reached', 'Runs that reached the node and a goal'],
] as const;

/** The graph's numbers as a table: one row per node, each count's meaning on its header. */
export function NodeCountsTable({ counts, types }: { counts: NodeCounts; types: Map<string, string> }) {
  return (
    <>
      <table className="counts node-counts">
        <caption>Runs at each node ({formatCount(counts.runs)} runs)</caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Type</th>
            {columns.map(([key, name, meaning]) => (
              <th key={key} scope="col" title={meaning}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {counts.nodes.map((node) => (
            <tr key={node.nodeId} data-node-id={node.nodeId}>
              <th scope="row">{node.nodeId}</th>
              <td>{types.get(node.nodeId) ?? 'older version'}</td>
              {columns.map(([key]) => (
                <td key={key} className="number">
                  {formatCount(node[key])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {counts.goals.length > 0 && (
        <table className="counts">
          <caption>Goals reached</caption>
          <thead>
            <tr>
              <th scope="col">Goal</th>
              <th scope="col">Runs</th>
            </tr>
          </thead>
          <tbody>
            {counts.goals.map((goal) => (
              <tr key={goal.goalId}>
                <th scope="row">{goal.goalId}</th>
                <td className="number">{formatCount(goal.reached)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
