/** A Go duration ("40s", "1m30s", "500ms"), in ms; undefined when malformed. */
export function parseDuration(s: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const)[m[2] as 'ms'];
    consumed += m[0].length;
  }
  return consumed === s.length && s.length > 0 ? total : undefined;
}
