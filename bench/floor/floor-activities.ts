/** The floor's one activity does nothing, so what is measured is Temporal's own cost per unit. */
export interface FloorActivities {
  floorStep(unit: number): Promise<number>;
}

export const floorActivities: FloorActivities = {
  async floorStep(unit) {
    return unit;
  },
};
