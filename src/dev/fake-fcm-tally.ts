/**
 * What the fake FCM counts of the sends it accepted, kept lean enough for a benchmark of a million sends: a counter
 * per device token and one float per accept, never the bodies.
 */

interface Waiter {
  count: number;
  reached: () => void;
}

const initialCapacity = 1024;

export class AcceptTally {
  #accepted = 0;
  #duplicates = 0;
  readonly #perToken = new Map<string, number>();
  /** Arrival times (epoch ms) of the accepted sends, in the order they were accepted; grown by doubling. */
  #times = new Float64Array(initialCapacity);
  /** False once a send was accepted out of arrival order (a scripted delay), so the window scan sorts a copy. */
  #inArrivalOrder = true;
  #first = Infinity;
  #last = -Infinity;
  #waiters: Waiter[] = [];
  /** The smallest count a waiter waits for, so an accept costs one comparison while nobody is due. */
  #nextWake = Infinity;

  get accepted(): number {
    return this.#accepted;
  }

  /** Accepts beyond the first for the same token, summed over tokens. */
  get duplicates(): number {
    return this.#duplicates;
  }

  get distinctTokens(): number {
    return this.#perToken.size;
  }

  /** Arrival time of the earliest accepted send (epoch ms), if any. */
  get firstAt(): number | undefined {
    return this.#accepted ? this.#first : undefined;
  }

  /** Arrival time of the latest accepted send (epoch ms), if any. */
  get lastAt(): number | undefined {
    return this.#accepted ? this.#last : undefined;
  }

  record(token: string, arrivedAt: number): void {
    const before = this.#perToken.get(token) ?? 0;
    this.#perToken.set(token, before + 1);
    if (before > 0) this.#duplicates += 1;

    if (this.#accepted === this.#times.length) {
      const grown = new Float64Array(this.#times.length * 2);
      grown.set(this.#times);
      this.#times = grown;
    }
    if (arrivedAt < this.#last) this.#inArrivalOrder = false;
    this.#times[this.#accepted] = arrivedAt;
    this.#accepted += 1;
    this.#first = Math.min(this.#first, arrivedAt);
    this.#last = Math.max(this.#last, arrivedAt);
    if (this.#accepted >= this.#nextWake) this.#wake();
  }

  countFor(token: string): number {
    return this.#perToken.get(token) ?? 0;
  }

  tokens(): Set<string> {
    return new Set(this.#perToken.keys());
  }

  /** A copy of the arrival times, in the order the sends were accepted. */
  times(): Float64Array {
    return this.#times.slice(0, this.#accepted);
  }

  /**
   * The most accepted sends that arrived within any `windowMs` span: a half-open window [t, t + windowMs), so two
   * sends exactly `windowMs` apart never share one. Linear in the accepts (a sort first if they came out of order).
   */
  maxInWindow(windowMs: number): number {
    const times = this.#inArrivalOrder ? this.#times.subarray(0, this.#accepted) : this.times().sort();
    let best = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= windowMs) start += 1;
      best = Math.max(best, end - start + 1);
    }
    return best;
  }

  /**
   * Calls `reached` once `count` sends were accepted: at once if they were, else on that accept (no polling).
   * Returns what cancels the wait.
   */
  whenAccepted(count: number, reached: () => void): () => void {
    if (this.#accepted >= count) {
      reached();
      return () => undefined;
    }
    const waiter: Waiter = { count, reached };
    this.#waiters.push(waiter);
    this.#nextWake = Math.min(this.#nextWake, count);
    return () => {
      this.#waiters = this.#waiters.filter((other) => other !== waiter);
      this.#nextWake = Math.min(Infinity, ...this.#waiters.map((other) => other.count));
    };
  }

  /** Starts counting afresh (between a benchmark's warm-up and its measured phase); waiters keep waiting. */
  reset(): void {
    this.#accepted = 0;
    this.#duplicates = 0;
    this.#perToken.clear();
    this.#times = new Float64Array(initialCapacity);
    this.#inArrivalOrder = true;
    this.#first = Infinity;
    this.#last = -Infinity;
  }

  #wake(): void {
    const due = this.#waiters.filter((waiter) => waiter.count <= this.#accepted);
    this.#waiters = this.#waiters.filter((waiter) => waiter.count > this.#accepted);
    this.#nextWake = Math.min(Infinity, ...this.#waiters.map((waiter) => waiter.count));
    for (const waiter of due) waiter.reached();
  }
}
