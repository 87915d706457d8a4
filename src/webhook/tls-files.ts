/**
 * The serving key pair from files, reloaded when they change: cert-manager
 * and kubelet-projected Secrets replace the files in place (a symlink
 * swap), and a webhook that kept its first certificate would fail every call
 * once that one expires. The files are polled (fs.watchFile), which sees a
 * swapped symlink where fs.watch would keep watching the old inode.
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { Server } from 'node:https';

export interface KeyPair { cert: string; key: string }

export function readKeyPair(certFile: string, keyFile: string): KeyPair {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/** Calls onChange with the new pair whenever either file changes; returns the function that stops watching. */
export function watchKeyPair(certFile: string, keyFile: string, intervalMs: number, onChange: (pair: KeyPair) => void, onError: (e: Error) => void): () => void {
  const reload = (): void => {
    try {
      onChange(readKeyPair(certFile, keyFile));
    } catch (e) {
      // Half-written files (the certificate renewed before the key): the next change completes the pair.
      onError(e as Error);
    }
  };
  for (const f of [certFile, keyFile]) watchFile(f, { interval: intervalMs, persistent: false }, reload);
  return () => { for (const f of [certFile, keyFile]) unwatchFile(f, reload); };
}

/** The server's key pair replaced whenever its files change; a pair that does not load leaves the current one serving. */
export function reloadKeyPairOnChange(server: Server, certFile: string, keyFile: string, intervalMs: number, log: (line: string) => void): () => void {
  return watchKeyPair(certFile, keyFile, intervalMs, (p) => {
    try {
      server.setSecureContext({ cert: p.cert, key: p.key });
      log('reloaded the serving certificate');
    } catch (e) {
      log(`keeping the serving certificate: the new key pair does not load: ${(e as Error).message}`);
    }
  }, (e) => log(`keeping the serving certificate: ${e.message}`));
}
