import { ensurePrivateDir } from '../storage/private-paths.js';

/** The data directory cannot be used: one line for the user, with the path and the cause. */
export class DataDirError extends Error {}

/** Creates (0700) or checks the data directory before anything is written into it. */
export function prepareDataDir(dir: string): void {
  try {
    ensurePrivateDir(dir);
  } catch (e) {
    throw new DataDirError(`cannot use data directory ${dir}: ${(e as Error).message}`);
  }
}
