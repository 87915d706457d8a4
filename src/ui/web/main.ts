/** The web view's entry point, bundled by esbuild into dist/src/ui/bundle/app.js (and app.css). */
import { html } from 'htm/preact';
import { render } from 'preact';
import './styles.css';
import { App } from './view/app.js';

const root = document.getElementById('app')!;
// The "Loading…" placeholder is static markup, not Preact's: render would keep it beside the app.
root.replaceChildren();
render(html`<${App} />`, root);
