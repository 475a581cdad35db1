// TEMPORARY stand-in, replaced by branch i10-stats.
export interface ArmCounts {
  sent: number;
  clicks: number;
}
export function decideWinner(arms: { A: ArmCounts; B: ArmCounts }) {
  const ctr = (arm: ArmCounts) => (arm.sent ? arm.clicks / arm.sent : 0);
  const ctrA = ctr(arms.A);
  const ctrB = ctr(arms.B);
  return { winner: ctrA === ctrB ? null : ctrA > ctrB ? ('A' as const) : ('B' as const), ctrA, ctrB, significance: null as unknown, srm: null as unknown };
}
export function armSizeWarning(perArm: number): string | null {
  return perArm < 1000 ? `each arm has ${perArm} devices: directional only` : null;
}
