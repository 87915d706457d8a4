/**
 * A JSON list written as it is read from storage, page by page, each page in
 * slices that wait for the client to take the previous ones: a list in
 * flight holds one page of stored texts and a slice of output, whatever the
 * size of the collection. The bytes are those of the whole list written at
 * once; a list of one page keeps its Content-Length, a longer one goes out
 * chunked.
 */
import type { ServerResponse } from 'node:http';
import type { KeyValue } from '../storage/types.js';
import type { ListPage } from '../registry/store.js';
import { rawLength, writeWithRevision } from '../registry/codec.js';

/** Objects read from storage at a time: 300 LISTs of 10,000 1.5 kB objects in flight keep the server under 600 MB (500 took it past 1.9 GB). */
export const LIST_PAGE_SIZE = 100;
/** Bytes of output written at a time. */
const SLICE_BYTES = 64 * 1024;

/** items[from, to) as JSON array members, each after a comma but for the list's very first. */
function itemsBuffer(items: KeyValue[], from: number, to: number, listStart: boolean): Buffer {
  // Callers pass 0 <= from <= to <= items.length, so every items[i] below exists.
  let size = to - from;
  for (let i = from; i < to; i++) size += rawLength(items[i]!.value, items[i]!.modRevision);
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  for (let i = from; i < to; i++) {
    if (i > from || !listStart) buf[off++] = 0x2c;
    off = writeWithRevision(buf, off, items[i]!.value, items[i]!.modRevision);
  }
  return buf.subarray(0, off);
}

/** Resolves true once the response's buffer drained (with 'finish': all of it went out), false if the connection closed first. */
function drained(res: ServerResponse, event: 'drain' | 'finish' = 'drain'): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => { res.off(event, onDone); res.off('close', onClose); resolve(ok); };
    const onDone = done(true);
    const onClose = done(false);
    res.once(event, onDone);
    res.once('close', onClose);
  });
}

/**
 * Ends the response and, when the client has not taken all of it yet, waits
 * until it has: like upstream's handler, whose writes block, the request
 * holds its seats until then.
 */
async function endAndWait(res: ServerResponse, last: Buffer): Promise<void> {
  const ok = res.write(last);
  res.end();
  if (!ok && !res.writableFinished) await drained(res, 'finish');
}

/**
 * Writes the list `{"kind":...,"metadata":{"resourceVersion":...},"items":[...]}`
 * from pages of stored values (the first page decides the revision).
 */
export async function writeListStream(res: ServerResponse, head: (revision: number) => string, pages: AsyncIterator<ListPage>): Promise<void> {
  const first = await pages.next();
  if (first.done) throw new Error('a list has at least one page');
  let page = first.value;
  const start = Buffer.from(head(page.revision));
  const end = Buffer.from(']}');
  if (!page.more) {
    const body = Buffer.concat([start, itemsBuffer(page.items, 0, page.items.length, true), end]);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    return endAndWait(res, body);
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  let ok = res.write(start);
  let listStart = true;
  for (;;) {
    const items = page.items;
    for (let from = 0; from < items.length;) {
      let to = from;
      for (let bytes = 0; to < items.length && bytes < SLICE_BYTES; to++) bytes += items[to]!.value.length;
      ok = res.write(itemsBuffer(items, from, to, listStart)) && ok;
      listStart = false;
      from = to;
      if (!ok) {
        if (!(await drained(res))) { await pages.return?.(undefined); return; }
        ok = true;
      }
    }
    if (!page.more) break;
    const next = await pages.next();
    if (next.done) break;
    page = next.value;
  }
  return endAndWait(res, end);
}
