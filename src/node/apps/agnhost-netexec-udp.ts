/**
 * agnhost netexec's UDP server (netexec.go, startUDPServer): each datagram,
 * trimmed and lower-cased, is a command: `hostname` answers the hostname,
 * `echo <msg>` answers <msg> (lower-cased, as the whole text is),
 * `clientip` answers the sender's ip:port; anything else is logged and
 * left unanswered. Each answer is one datagram back to the sender.
 */
import type { Endpoint } from '../shell/net-types.js';

export interface DatagramAnswer {
  /** The datagrams sent back (none for an unknown command). */
  replies: string[];
  /** What the server logs (the text after log's timestamp), if anything. */
  log?: string;
}

export function netexecDatagram(payload: string, hostname: string, client: Endpoint): DatagramAnswer {
  const text = payload.trim().toLowerCase();
  const from = `${client.ip}:${client.port}`;
  if (text === 'hostname') return { replies: [hostname], log: 'Sending udp hostName response' };
  if (text.startsWith('echo ')) {
    const resp = text.slice('echo '.length);
    return { replies: [resp], log: `Echoing ${resp} to UDP client ${from}` };
  }
  if (text === 'clientip') return { replies: [from], log: `Sending clientip back to UDP client ${from}` };
  return { replies: [], ...(text.length ? { log: `Unknown UDP command received from ${from}: ${text}` } : {}) };
}
