/**
 * What a container asks for over time (CPU in nanocores, memory in bytes),
 * as `winkube.io/script` describes it: a step (idle, then a value from some
 * second on) or a ramp (points joined by straight lines, idle before the
 * first, the last value held). The OS then decides how much of the demand
 * the container gets (usage-model.ts).
 *
 * Functions are piecewise linear in seconds since the container started;
 * a jump is two knots at the same time, the later one holding from then on.
 */

export type Demand =
  | { kind: 'step'; atSeconds: number; value: number }
  | { kind: 'ramp'; points: Array<[seconds: number, value: number]> };

export interface Knot { t: number; v: number }

/** The demand's knots over an idle baseline. */
export function demandKnots(demand: Demand | undefined, idle: number): Knot[] {
  if (!demand) return [{ t: 0, v: idle }];
  if (demand.kind === 'step') {
    const at = Math.max(0, demand.atSeconds);
    return at === 0 ? [{ t: 0, v: demand.value }] : [{ t: 0, v: idle }, { t: at, v: idle }, { t: at, v: demand.value }];
  }
  const points = [...demand.points].filter(([t]) => t >= 0).sort((a, b) => a[0] - b[0]);
  if (!points.length) return [{ t: 0, v: idle }];
  const knots: Knot[] = points[0]![0] > 0 ? [{ t: 0, v: idle }, { t: points[0]![0], v: idle }] : [];
  for (const [t, v] of points) knots.push({ t, v });
  return knots;
}

/** f(t): right-continuous (at a jump, the value after it). */
export function valueAt(knots: readonly Knot[], t: number): number {
  let v = knots[0]?.v ?? 0;
  for (let i = 0; i < knots.length; i++) {
    const k = knots[i]!;
    if (k.t > t) {
      const prev = knots[i - 1];
      if (!prev || prev.t === k.t) return v;
      return prev.v + ((k.v - prev.v) * (t - prev.t)) / (k.t - prev.t);
    }
    v = k.v;
  }
  return v;
}

/** ∫ min(a + (b−a)·x/d, cap) over x in [0, d]: a straight piece with the cap cutting it. */
function cappedPiece(a: number, b: number, d: number, cap: number): number {
  if (d <= 0) return 0;
  if (a <= cap && b <= cap) return ((a + b) / 2) * d;
  if (a >= cap && b >= cap) return cap * d;
  // Crossing: the part below the cap is a trapezoid, the rest is the cap.
  const x = ((cap - a) / (b - a)) * d;
  return a < cap ? ((a + cap) / 2) * x + cap * (d - x) : cap * x + ((cap + b) / 2) * (d - x);
}

/** ∫₀ᵀ min(f(t), cap) dt, in value·seconds. */
export function cappedIntegral(knots: readonly Knot[], cap: number, T: number): number {
  if (T <= 0 || !knots.length) return 0;
  let sum = 0;
  for (let i = 0; i + 1 < knots.length; i++) {
    const p = knots[i]!; const q = knots[i + 1]!;
    if (p.t >= T) return sum;
    if (q.t === p.t) continue;
    const end = Math.min(q.t, T);
    // The piece's own line (valueAt would give the value after a jump at its end).
    const endValue = p.v + ((q.v - p.v) * (end - p.t)) / (q.t - p.t);
    sum += cappedPiece(p.v, endValue, end - p.t, cap);
    if (q.t >= T) return sum;
  }
  const last = knots[knots.length - 1]!;
  return sum + Math.min(last.v, cap) * (T - Math.max(0, last.t));
}

/** The first second at which f rises above `limit`, or undefined when it never does. */
export function firstAbove(knots: readonly Knot[], limit: number): number | undefined {
  for (let i = 0; i < knots.length; i++) {
    const p = knots[i]!;
    if (p.v > limit) return p.t;
    const q = knots[i + 1];
    if (q && q.t > p.t && q.v > limit) return p.t + ((limit - p.v) / (q.v - p.v)) * (q.t - p.t);
  }
  return undefined;
}
