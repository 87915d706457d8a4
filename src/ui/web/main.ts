/** The web view's entry point, bundled by esbuild into dist/src/ui/bundle/app.js (and app.css). */
import { html } from 'htm/preact';
import { render } from 'preact';
import './styles.css';
import { App } from './view/app.js';

render(html`<${App} />`, document.getElementById('app')!);
