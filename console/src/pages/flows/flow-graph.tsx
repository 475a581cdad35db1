import { useId } from 'react';
import { formatCount } from '../../components/format.ts';
import { box, layOut, type FlowEdge, type FlowNode, type PlacedNode } from './flow-graph-layout.ts';
import type { NodeCounts } from './flow-queries.ts';

type Counts = NodeCounts['nodes'][number];

function NodeBox({ placed, counts }: { placed: PlacedNode; counts: Counts | undefined }) {
  const { node, x, y } = placed;
  const line = (row: number) => y + 20 + row * 18;
  return (
    <g className={`flow-node flow-node-${node.type}`} data-node-id={node.id}>
      <rect x={x} y={y} width={box.width} height={box.height} rx={6} />
      <text x={x + 10} y={line(0)} className="flow-node-name">
        {node.id} <tspan className="flow-node-type">{node.type}</tspan>
      </text>
      <text x={x + 10} y={line(1)}>
        entered {formatCount(counts?.entered ?? 0)} · waiting {formatCount(counts?.waiting ?? 0)}
      </text>
      <text x={x + 10} y={line(2)}>
        passed {formatCount(counts?.passed ?? 0)} · goal {formatCount(counts?.goalReached ?? 0)}
      </text>
    </g>
  );
}

/**
 * One edge: straight down to the next row; to a row further down (or back up, in a draft) it bends out to the right,
 * so it does not run through the nodes between.
 */
function EdgeLine({ edge, from, to }: { edge: FlowEdge; from: PlacedNode; to: PlacedNode }) {
  const adjacent = to.layer === from.layer + 1;
  const [x1, y1] = adjacent ? [from.x + box.width / 2, from.y + box.height] : [from.x + box.width, from.y + box.height / 2];
  const [x2, y2] = adjacent ? [to.x + box.width / 2, to.y] : [to.x + box.width, to.y + box.height / 2];
  const bend = Math.max(x1, x2) + 40 + 12 * Math.abs(to.layer - from.layer);
  const d = adjacent ? `M ${x1} ${y1} L ${x2} ${y2}` : `M ${x1} ${y1} C ${bend} ${y1}, ${bend} ${y2}, ${x2} ${y2}`;
  // A bent edge is furthest out at three quarters of the way to its bend: its label goes just past that.
  const [labelX, labelY] = adjacent ? [(x1 + x2) / 2 + 4, (y1 + y2) / 2] : [x1 + 0.75 * (bend - x1) + 6, (y1 + y2) / 2];
  return (
    <g className="flow-edge">
      <path d={d} markerEnd="url(#flow-arrow)" />
      {edge.label && (
        <text x={labelX} y={labelY} className="flow-edge-label">
          {edge.label}
        </text>
      )}
    </g>
  );
}

/**
 * The definition as a graph, top-down from its start, each node with its counts. An image for the eye: the table
 * beside it holds the same numbers for screen readers and for tests.
 */
export function FlowGraph({ nodes, start, counts }: { nodes: FlowNode[]; start: string; counts: NodeCounts | undefined }) {
  const titleId = useId();
  const layout = layOut(nodes, start);
  const at = new Map(layout.nodes.map((placed) => [placed.node.id, placed]));
  const countsOf = new Map(counts?.nodes.map((each) => [each.nodeId, each]));
  return (
    <svg className="flow-graph" role="img" aria-labelledby={titleId} viewBox={`0 0 ${layout.width} ${layout.height}`} width={layout.width} height={layout.height}>
      <title id={titleId}>The flow’s nodes from its start down, with each node’s counts (the table below has the same numbers)</title>
      <defs>
        <marker id="flow-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" className="flow-arrow" />
        </marker>
      </defs>
      {layout.edges.map((edge) => (
        <EdgeLine key={`${edge.from}-${edge.to}`} edge={edge} from={at.get(edge.from)!} to={at.get(edge.to)!} />
      ))}
      {layout.nodes.map((placed) => (
        <NodeBox key={placed.node.id} placed={placed} counts={countsOf.get(placed.node.id)} />
      ))}
    </svg>
  );
}
