import type { Schema } from '../../api/client.ts';

export type FlowNode = Schema<'ExperienceDefinition'>['nodes'][number];

export interface FlowEdge {
  from: string;
  to: string;
  /** Which way out of the node: then, else, timeout, a split's percent; empty for a node's one `next`. */
  label: string;
}

/** A node's ways out, in the order its definition names them. */
export function edgesOf(node: FlowNode): FlowEdge[] {
  const edge = (to: string, label = '') => ({ from: node.id, to, label });
  switch (node.type) {
    case 'condition':
      return [edge(node.then, 'then'), edge(node.else, 'else')];
    case 'waitForEvent':
      return [edge(node.next, node.eventType), edge(node.timeoutNext, 'timeout')];
    case 'split':
      return node.branches.map((branch) => edge(branch.next, `${branch.percent} %`));
    case 'exit':
      return [];
    default:
      return [edge(node.next)];
  }
}

export interface PlacedNode {
  node: FlowNode;
  layer: number;
  x: number;
  y: number;
}

export interface FlowLayout {
  nodes: PlacedNode[];
  edges: FlowEdge[];
  width: number;
  height: number;
}

export const box = { width: 200, height: 78, gapX: 28, gapY: 56, margin: 12 };

/**
 * Layers from the start node down: each node one below the deepest node that leads to it (a published definition has
 * no cycle; in a draft, an edge back up is left out of the depth). A node nothing reaches goes in a last layer.
 */
function layersOf(nodes: FlowNode[], start: string): Map<string, number> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const layer = new Map<string, number>();
  const onPath = new Set<string>();
  const visit = (id: string, depth: number) => {
    const node = byId.get(id);
    if (!node || onPath.has(id) || (layer.get(id) ?? -1) >= depth) return;
    layer.set(id, depth);
    onPath.add(id);
    for (const edge of edgesOf(node)) visit(edge.to, depth + 1);
    onPath.delete(id);
  };
  visit(start, 0);
  const last = Math.max(-1, ...layer.values()) + 1;
  for (const node of nodes) if (!layer.has(node.id)) layer.set(node.id, last);
  return layer;
}

/** Edges between the same two nodes drawn once, their labels joined (a waitForEvent whose event and timeout agree). */
function mergeParallel(edges: FlowEdge[]): FlowEdge[] {
  const merged = new Map<string, FlowEdge>();
  for (const edge of edges) {
    const key = `${edge.from}\u0000${edge.to}`;
    const seen = merged.get(key);
    merged.set(key, seen ? { ...seen, label: [seen.label, edge.label].filter(Boolean).join(' / ') } : edge);
  }
  return [...merged.values()];
}

/** A simple top-down layout: layers as rows, each row's nodes centred, in the definition's order. */
export function layOut(nodes: FlowNode[], start: string): FlowLayout {
  const layers = layersOf(nodes, start);
  const rows: FlowNode[][] = [];
  for (const node of nodes) (rows[layers.get(node.id)!] ??= []).push(node);
  const widest = Math.max(1, ...rows.map((row) => row?.length ?? 0));
  const nodesWidth = box.margin * 2 + widest * box.width + (widest - 1) * box.gapX;
  // Room on the right for the edges that bend round rows (EdgeLine) and their labels.
  const width = nodesWidth + 100 + 12 * rows.length;
  const placed = rows.flatMap((row, layer) => {
    const rowWidth = row.length * box.width + (row.length - 1) * box.gapX;
    const left = (nodesWidth - rowWidth) / 2;
    return row.map((node, index) => ({ node, layer, x: left + index * (box.width + box.gapX), y: box.margin + layer * (box.height + box.gapY) }));
  });
  const known = new Set(nodes.map((node) => node.id));
  return {
    nodes: placed,
    edges: mergeParallel(nodes.flatMap(edgesOf).filter((edge) => known.has(edge.to))),
    width,
    height: box.margin * 2 + rows.length * box.height + Math.max(0, rows.length - 1) * box.gapY,
  };
}
