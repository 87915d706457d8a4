import type { Storage } from './types.js';

const INTERVAL_MS = 60_000;
/** How much history watches and paginated lists can rely on, as upstream's 5-minute compaction interval gives. */
const RETAIN_MS = 5 * 60_000;

/** Compacts the history periodically to the revision that was current RETAIN_MS ago. */
export function startCompactor(storage: Storage): { stop(): void } {
  const samples: { at: number; rev: number }[] = [];
  const timer = setInterval(() => {
    const now = Date.now();
    samples.push({ at: now, rev: storage.currentRevision() });
    let target = 0;
    for (let s = samples[0]; s && s.at <= now - RETAIN_MS; s = samples[0]) {
      samples.shift();
      target = s.rev;
    }
    if (target > storage.compactedRevision()) void storage.compact(target);
  }, INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
