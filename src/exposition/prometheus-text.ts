/**
 * The Prometheus text exposition format (version 0.0.4) as client_golang's
 * expfmt writes it: families sorted by name, each with its HELP and TYPE
 * lines, samples sorted by label values, floats as Go's
 * strconv.FormatFloat(v, 'g', -1, 64), timestamps in milliseconds.
 */

export interface Sample { labels: Array<[string, string]>; value: number; timestampMs?: number }
export interface MetricFamily { name: string; help: string; type: 'counter' | 'gauge'; samples: Sample[] }

/** promhttp's answer to a client without an Accept preference: expfmt.Negotiate (prometheus/common v0.55, value escaping). */
export const PROMETHEUS_TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8; escaping=values';

/**
 * Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits, in exponent
 * form (at least two exponent digits) when the exponent is below -4 or at least 6.
 */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // Whole numbers below 1e6 print as themselves in both languages.
  if (Number.isInteger(v) && v > -1e6 && v < 1e6) return String(v);
  const [mantissa, e] = v.toExponential().split('e');
  const exponent = Number(e);
  if (exponent < -4 || exponent >= 6) return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return String(v);
}

const NEEDS_ESCAPE = /[\\\n"]/;

function escapeLabelValue(v: string): string {
  if (!NEEDS_ESCAPE.test(v)) return v;
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function compareSamples(a: Sample, b: Sample): number {
  for (const [i, [, x]] of a.labels.entries()) {
    const other = b.labels[i];
    if (!other) break;
    const y = other[1];
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.labels.length - b.labels.length;
}

function namesSorted(labels: ReadonlyArray<[string, string]>): boolean {
  for (let i = 1; i < labels.length; i++) if (labels[i - 1]![0] > labels[i]![0]) return false;
  return true;
}

/** The text of the families that have samples (an empty family is not written). */
export function writePrometheusText(families: readonly MetricFamily[]): string {
  let out = '';
  const sorted = families.filter((f) => f.samples.length).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const f of sorted) {
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    const samples = f.samples.map((s) => (namesSorted(s.labels) ? s : { ...s, labels: [...s.labels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) }))
      .sort(compareSamples);
    for (const s of samples) {
      const labels = s.labels.length ? `{${s.labels.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}` : '';
      out += `${f.name}${labels} ${goFloat(s.value)}${s.timestampMs !== undefined ? ` ${s.timestampMs}` : ''}\n`;
    }
  }
  return out;
}
