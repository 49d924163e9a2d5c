// Small statistics over repeated rounds: medians and spreads, never means (one noisy round on a
// shared machine would drag a mean).

export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** (max − min) / median, in percent: how far apart the rounds landed. */
export function spreadPercent(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = median(values);
  return ((Math.max(...values) - Math.min(...values)) / m) * 100;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sortedAscending: Float64Array, p: number): number {
  if (!sortedAscending.length) return Number.NaN;
  const rank = Math.ceil((p / 100) * sortedAscending.length);
  return sortedAscending[Math.min(sortedAscending.length, Math.max(1, rank)) - 1]!;
}
