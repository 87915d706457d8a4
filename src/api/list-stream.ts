/**
 * A JSON list written as it is read from storage, page by page, waiting for
 * the client to take each page before reading the next: a list in flight
 * holds one page, whatever the size of the collection. The bytes are those
 * of the whole list written at once; a list of one page keeps its
 * Content-Length, a longer one goes out chunked.
 */
import type { ServerResponse } from 'node:http';
import type { KeyValue } from '../storage/types.js';
import { rawLength, writeWithRevision } from '../registry/codec.js';
import type { ResourceDef } from '../registry/types.js';

/** Objects read and written at a time. */
export const LIST_PAGE_SIZE = 500;

/** The items of a page as JSON array members, comma-led after the first item of the list. */
function itemsBuffer(items: KeyValue[], first: boolean): Buffer {
  let size = items.length;
  for (const kv of items) size += rawLength(kv.value, kv.modRevision);
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  items.forEach((kv, i) => {
    if (i || !first) buf[off++] = 0x2c;
    off = writeWithRevision(buf, off, kv.value, kv.modRevision);
  });
  return buf.subarray(0, off);
}

/** Resolves true once the response's buffer drained (or, with `event` 'finish', all of it went out), false if the connection closed first. */
function drained(res: ServerResponse, event: 'drain' | 'finish' = 'drain'): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => { res.off(event, onDrain); res.off('close', onClose); resolve(ok); };
    const onDrain = done(true);
    const onClose = done(false);
    res.once(event, onDrain);
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
export async function writeListStream(res: ServerResponse, head: (revision: number) => string,
  pages: AsyncIterator<{ items: KeyValue[]; revision: number }>): Promise<void> {
  let page = await pages.next();
  if (page.done) throw new Error('a list has at least one page');
  let next = await pages.next();
  const start = Buffer.from(head(page.value.revision));
  const end = Buffer.from(']}');
  if (next.done) {
    const body = Buffer.concat([start, itemsBuffer(page.value.items, true), end]);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    return endAndWait(res, body);
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  let first = true;
  let ok = res.write(start);
  for (;;) {
    const items = page.value.items;
    if (items.length) {
      ok = res.write(itemsBuffer(items, first)) && ok;
      first = false;
    }
    if (!ok && !(await drained(res))) { await pages.return?.(undefined); return; }
    ok = true;
    if (next.done) break;
    page = next;
    next = await pages.next();
  }
  return endAndWait(res, end);
}
