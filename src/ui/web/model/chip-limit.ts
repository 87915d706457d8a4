/**
 * A card shows at most `limit` pod chips; the rest collapse into one "+N more" button, so a node with hundreds
 * of pods costs the page the same as one with a few. The selected pod always stays visible.
 */
export interface Collapsed<T> { shown: T[]; more: number }

export function collapseChips<T>(items: readonly T[], limit: number, expanded: boolean, isSelected: (item: T) => boolean = () => false): Collapsed<T> {
  if (expanded || items.length <= limit) return { shown: [...items], more: 0 };
  const shown = items.slice(0, limit);
  const selected = items.slice(limit).find(isSelected);
  if (selected) shown.push(selected);
  return { shown, more: items.length - shown.length };
}

/** The button's words: the visible text and the label a screen reader announces. */
export function moreText(more: number, where: string): { text: string; label: string } {
  return { text: `+${more} more`, label: `Show ${more} more ${more === 1 ? 'pod' : 'pods'} ${where}` };
}
