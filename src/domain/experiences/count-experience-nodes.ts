import type { EntityManager } from '@mikro-orm/postgresql';
import { findOwnedExperience } from './find-owned-experience.ts';

/** How many runs reached one node, and what became of them there. */
export interface NodeCounts {
  nodeId: string;
  /** Runs that reached the node: those that left it, and those at it now or when they ended. */
  entered: number;
  /** Live runs at the node now. */
  waiting: number;
  /** Runs that left the node (its step is in their path). */
  passed: number;
  /** Runs that ended at the node without leaving it: cancelled, an exit goal, the maximum duration, a failure. */
  stoppedHere: number;
  /** Runs that reached the node and reached a goal, before or after it. */
  goalReached: number;
}

export interface ExperienceNodeCounts {
  runs: number;
  version: number | null;
  nodes: NodeCounts[];
  goals: Array<{ goalId: string; reached: number }>;
}

const asNumber = (value: string | number) => Number(value);

// One row per (run, node it reached). A node is in the path once at most (a definition has no cycle), and the run's
// current node is added when it is not: a run waits at its current node, or ended there.
const nodeCountsSql = `
with runs as (
  select id, status, current_node_id, path,
    exists (select 1 from jsonb_array_elements(path) step where step->>'type' = 'goal') as reached_goal
  from experience_runs where experience_id = ? and (?::int is null or version = ?::int)
), reached as (
  select runs.id, node.node_id, bool_or(node.passed) as passed, bool_or(node.here and runs.status = 'running') as waiting,
    runs.reached_goal
  from runs cross join lateral (
    select step->>'nodeId' as node_id, true as passed, false as here from jsonb_array_elements(runs.path) step where step->>'type' <> 'goal'
    union all
    select runs.current_node_id, false, true where runs.current_node_id is not null
  ) node
  group by runs.id, node.node_id, runs.reached_goal
)
select node_id, count(*) as entered, count(*) filter (where waiting) as waiting, count(*) filter (where passed) as passed,
  count(*) filter (where not passed and not waiting) as stopped_here, count(*) filter (where reached_goal) as goal_reached
from reached group by node_id`;

const goalCountsSql = `
select substr(step->>'nodeId', 6) as goal_id, count(distinct runs.id) as reached
from experience_runs runs cross join lateral jsonb_array_elements(runs.path) step
where runs.experience_id = ? and (?::int is null or runs.version = ?::int) and step->>'type' = 'goal'
group by 1`;

interface NodeRow {
  node_id: string;
  entered: string;
  waiting: string;
  passed: string;
  stopped_here: string;
  goal_reached: string;
}

/**
 * Each node's counts over an experience's runs (of one version, or of every version), read from the runs' stored
 * paths. Every node of the latest definition is listed, with zeros where no run reached it, then any node only
 * older versions had; goals likewise.
 */
export async function countExperienceNodes(em: EntityManager, accountId: string, experienceId: string, version: number | undefined): Promise<ExperienceNodeCounts> {
  const experience = await findOwnedExperience(em, accountId, experienceId);
  const v = version ?? null;
  const [nodeRows, goalRows, [total]] = await Promise.all([
    em.execute<NodeRow[]>(nodeCountsSql, [experienceId, v, v]),
    em.execute<Array<{ goal_id: string; reached: string }>>(goalCountsSql, [experienceId, v, v]),
    em.execute<Array<{ runs: string }>>('select count(*) as runs from experience_runs where experience_id = ? and (?::int is null or version = ?::int)', [experienceId, v, v]),
  ]);
  const byNode = new Map(nodeRows.map((row) => [row.node_id, row]));
  const nodeIds = [...new Set([...experience.definition.nodes.map((node) => node.id), ...byNode.keys()])];
  const reachedByGoal = new Map(goalRows.map((row) => [row.goal_id, asNumber(row.reached)]));
  const goalIds = [...new Set([...experience.definition.goals.map((goal) => goal.id), ...reachedByGoal.keys()])];
  return {
    runs: asNumber(total?.runs ?? 0),
    version: v,
    nodes: nodeIds.map((nodeId) => {
      const row = byNode.get(nodeId);
      return {
        nodeId,
        entered: asNumber(row?.entered ?? 0),
        waiting: asNumber(row?.waiting ?? 0),
        passed: asNumber(row?.passed ?? 0),
        stoppedHere: asNumber(row?.stopped_here ?? 0),
        goalReached: asNumber(row?.goal_reached ?? 0),
      };
    }),
    goals: goalIds.map((goalId) => ({ goalId, reached: reachedByGoal.get(goalId) ?? 0 })),
  };
}
