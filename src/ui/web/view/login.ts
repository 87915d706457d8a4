/** Asked when the page was opened without the login link: the token of a kubeconfig's user. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';

export function Login(props: { message?: string; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  return html`<main class="login">
    <h1>winkube</h1>
    <form onSubmit=${(e: Event) => { e.preventDefault(); if (token.trim()) props.onToken(token.trim()); }}>
      <label for="token">Bearer token</label>
      <input id="token" type="password" autocomplete="off" value=${token}
        onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)} />
      <button type="submit">Sign in</button>
      ${props.message ? html`<p role="alert">${props.message}</p>` : null}
      <p class="hint">The login link <code>winkube up</code> prints carries the admin token; any user's token works with that user's rights.</p>
    </form>
  </main>`;
}
