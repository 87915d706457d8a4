import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpRequestParser, serializeResponse } from '../../src/api/streaming/http-relay.js';
import type { HttpRequest } from '../../src/apimachinery/http-exchange.js';

test('requests are parsed whole: pipelined, split anywhere, Content-Length and chunked bodies', () => {
  const p = new HttpRequestParser();
  const wire = 'GET / HTTP/1.1\r\nHost: x\r\n\r\nPOST /a?b=1 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc' +
    'PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n1;ext\r\n!\r\n0\r\n\r\n';
  const got: HttpRequest[] = [];
  for (let i = 0; i < wire.length; i += 7) got.push(...p.push(Buffer.from(wire.slice(i, i + 7))));
  assert.deepEqual(got.map((r) => [r.method, r.target, r.headers, Buffer.from(r.body).toString()]), [
    ['GET', '/', [['Host', 'x']], ''],
    ['POST', '/a?b=1', [['Content-Length', '3']], 'abc'],
    ['PUT', '/c', [['Transfer-Encoding', 'chunked']], 'hi!'],
  ]);
  assert.equal(p.partial, false);
  assert.throws(() => new HttpRequestParser().push(Buffer.from('NOT HTTP\r\n\r\n')), /malformed request line/);
});

test('responses get a Content-Length unless the application framed them; HEAD answers carry no body', () => {
  const res = { status: 200, reason: 'OK', headers: [['Content-Type', 'text/html']] as [string, string][], body: Buffer.from('hello') };
  assert.equal(serializeResponse(res, false).toString(), 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello');
  assert.equal(serializeResponse({ ...res, headers: [['Content-Length', '5']] }, true).toString(), 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n');
});

