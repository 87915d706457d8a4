/** helper.DefaultNormalizeScore: scale to [0, max] by the highest score, reversed if asked. */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: number[]): void {
  let maxCount = 0;
  for (const s of scores) if (s > maxCount) maxCount = s;
  if (maxCount === 0) {
    if (reverse) for (let i = 0; i < scores.length; i++) scores[i] = maxPriority;
    return;
  }
  // Indexed, without a callback: this runs over every feasible node of every cycle.
  for (let i = 0; i < scores.length; i++) {
    const s = Math.trunc(maxPriority * (scores[i] ?? 0) / maxCount);
    scores[i] = reverse ? maxPriority - s : s;
  }
}
