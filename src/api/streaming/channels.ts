/**
 * The WebSocket "channel" framing of k8s.io/apimachinery/pkg/util/httpstream/wsstream:
 * every message starts with its channel (stdin 0, stdout 1, stderr 2, error 3,
 * resize 4); base64 protocols send text messages whose first character is the
 * channel digit. v5.channel.k8s.io adds channel 255, CLOSE, whose one-byte
 * payload names the channel the client has finished writing.
 */
export const Channel = { Stdin: 0, Stdout: 1, Stderr: 2, Error: 3, Resize: 4 } as const;
export const CLOSE_CHANNEL = 255;

export interface ChannelProtocol {
  name: string;
  base64: boolean;
  /** v4 and later write a metav1.Status as JSON on the error channel; older ones a plain message. */
  statusAsJSON: boolean;
  /** v5: the client can close a single channel. */
  closeSignal: boolean;
}

/** Protocols served for exec and attach, as kubelet and apiserver accept them. */
export const CHANNEL_PROTOCOLS: readonly ChannelProtocol[] = [
  { name: 'v5.channel.k8s.io', base64: false, statusAsJSON: true, closeSignal: true },
  { name: 'v4.channel.k8s.io', base64: false, statusAsJSON: true, closeSignal: false },
  { name: 'v4.base64.channel.k8s.io', base64: true, statusAsJSON: true, closeSignal: false },
  { name: 'channel.k8s.io', base64: false, statusAsJSON: false, closeSignal: false },
  { name: 'base64.channel.k8s.io', base64: true, statusAsJSON: false, closeSignal: false },
];

/** A client offering no subprotocol gets the original binary channel protocol (wsstream's "" entry). */
const NO_PROTOCOL: ChannelProtocol = { name: '', base64: false, statusAsJSON: false, closeSignal: false };

/** wsstream handshake: the client's order of preference decides. */
export function chooseChannelProtocol(offered: readonly string[]): ChannelProtocol | undefined {
  if (offered.length === 0) return NO_PROTOCOL;
  for (const name of offered) {
    const p = CHANNEL_PROTOCOLS.find((c) => c.name === name);
    if (p) return p;
  }
  return undefined;
}

export function encodeChannelMessage(p: ChannelProtocol, channel: number, data: Buffer): Buffer | string {
  if (p.base64) return String.fromCharCode(0x30 + channel) + data.toString('base64');
  return Buffer.concat([Buffer.from([channel]), data]);
}

export type ChannelMessage =
  | { kind: 'data'; channel: number; data: Buffer }
  | { kind: 'close'; channel: number };

/** Reads one client message; accepts text and binary frames alike (the Python client sends text). */
export function decodeChannelMessage(p: ChannelProtocol, message: Buffer): ChannelMessage | undefined {
  if (message.length === 0) return undefined;
  if (p.base64) {
    const channel = message[0] - 0x30;
    return { kind: 'data', channel, data: Buffer.from(message.subarray(1).toString('latin1'), 'base64') };
  }
  const channel = message[0];
  if (channel === CLOSE_CHANNEL && p.closeSignal) {
    if (message.length !== 2) return undefined;
    return { kind: 'close', channel: message[1] };
  }
  return { kind: 'data', channel, data: message.subarray(1) };
}
