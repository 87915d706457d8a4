/** The scheduler's Score table of `winkube explain-scheduling`: each feasible node's weighted plugin scores and total, best first. */
import { html } from 'htm/preact';
import type { SchedulingView } from '../../scheduling-view.js';

export function ScoreTable(props: { view: SchedulingView }) {
  const { scores } = props.view;
  if (!scores.length) return null;
  const plugins = scores[0]?.scores.map((s) => s.plugin) ?? [];
  const best = scores.filter((s) => s.total === scores[0]?.total).map((s) => s.node);
  return html`<div class="table-scroll"><table class="score-table">
    <caption>Scheduler scores per feasible node (normalized plugin score × weight; the highest total wins, ties broken at random)</caption>
    <thead><tr><th scope="col">Node</th>${plugins.map((p) => html`<th scope="col">${p}</th>`)}<th scope="col">Total</th></tr></thead>
    <tbody>${scores.map((row) => html`<tr data-node=${row.node} class=${best.includes(row.node) ? 'best' : ''}>
      <th scope="row">${row.node}</th>${row.scores.map((s) => html`<td>${s.score}</td>`)}<td>${row.total}</td>
    </tr>`)}</tbody>
  </table></div>
  <p class="selected">${best.length === 1 ? `Selected: ${best[0]}` : `Selected at random among: ${best.join(', ')}`}</p>`;
}
