/**
 * How many batch requests may be in flight: additive increase, multiplicative decrease (TCP's
 * AIMD). A 429 halves the window, at most once a second so one burst of 429s counts once; each
 * success adds 1/window, so a full window of successes grows it by one, back up to the maximum.
 */
export class ConcurrencyWindow {
  private limit: number;
  private lastCut = Number.NEGATIVE_INFINITY;

  constructor(
    readonly max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.limit = max;
  }

  get current(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  succeeded(): void {
    if (this.limit < this.max) this.limit = Math.min(this.max, this.limit + 1 / this.current);
  }

  rateLimited(): void {
    const t = this.now();
    if (t - this.lastCut < 1000) return;
    this.lastCut = t;
    this.limit = Math.max(1, this.limit / 2);
  }
}
