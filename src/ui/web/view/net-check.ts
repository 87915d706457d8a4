/**
 * `winkube net check [--protocol icmp] FROM TO[:PORT]` in the page: the same server endpoint the command asks
 * (/winkube/v1/net/check, admins only), its hops drawn as a path and the command's last line as the verdict.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ApiError, getJSON, type Session } from '../api.js';
import { netPath, type NetTrace } from '../model/net-path.js';
import { invalidTargetMessage, parseNetTarget } from '../../../node/net/net-target.js';

const NET_CHECK_PATH = '/winkube/v1/net/check';

export function NetCheck(props: { session: Session }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [namespace, setNamespace] = useState('default');
  const [protocol, setProtocol] = useState<'tcp' | 'icmp'>('tcp');
  const [result, setResult] = useState<{ trace?: NetTrace; error?: string; busy?: boolean }>({});
  const submit = (e: Event) => {
    e.preventDefault();
    // The command's own parse and refusal: an echo has no port; a connection's port is 1-65535.
    const target = parseNetTarget(to.trim(), protocol);
    if (!target) { setResult({ error: invalidTargetMessage(to, protocol) }); return; }
    const q = new URLSearchParams({ from: from.trim(), to: target.to, namespace, ...('port' in target ? { port: String(target.port) } : { protocol }) });
    setResult({ busy: true });
    getJSON<NetTrace>(props.session, `${NET_CHECK_PATH}?${q.toString()}`)
      .then((trace) => setResult({ trace }))
      .catch((err: unknown) => setResult({ error: err instanceof ApiError ? err.message : String(err) }));
  };
  const path = result.trace ? netPath(result.trace) : undefined;
  return html`<section class="net-check" aria-labelledby="net-check-title">
    <h2 id="net-check-title">Net check</h2>
    <form class="net-check-form" onSubmit=${submit}>
      <label>From <input name="from" value=${from} required placeholder="pod, NS/pod, node/NAME or IP" onInput=${(e: Event) => setFrom((e.target as HTMLInputElement).value)} /></label>
      <label>To <input name="to" value=${to} required placeholder="svc/NAME:PORT, pod, node/NAME:PORT, IP:PORT" onInput=${(e: Event) => setTo((e.target as HTMLInputElement).value)} /></label>
      <label>Namespace <input name="namespace" value=${namespace} onInput=${(e: Event) => setNamespace((e.target as HTMLInputElement).value)} /></label>
      <label>Protocol <select name="protocol" value=${protocol} onChange=${(e: Event) => setProtocol((e.target as HTMLSelectElement).value === 'icmp' ? 'icmp' : 'tcp')}>
        <option value="tcp">TCP connection</option>
        <option value="icmp">ICMP echo (ping)</option>
      </select></label>
      <button type="submit" disabled=${result.busy}>Check</button>
    </form>
    ${result.error ? html`<p role="alert" class="net-error">${result.error}</p>` : null}
    ${path && result.trace ? html`<figure class="net-path-figure">
      <figcaption>${result.trace.from} → ${result.trace.to}</figcaption>
      <ol class="net-path">${path.steps.map((s) => html`<li class=${`hop hop-${s.role}`} data-role=${s.role}>${s.text}</li>`)}</ol>
      <p class=${`verdict ${path.ok ? 'tone-ok' : 'tone-bad'}`} role="status" data-verdict=${path.verdict}>${path.verdict}</p>
    </figure>` : null}
  </section>`;
}
