/**
 * Builds that hide the call's controls until the pointer moves (Meet's toolbar, the field notes'
 * Meet 2; VX moves the mouse for it) show them for a real pointer move. The mouse goes to and fro
 * between two points in the page's top left corner, over nothing a hover changes: never over a
 * tile, whose hover look would read as a change of its look.
 */
import type { Page } from 'puppeteer-core';

const moved = new WeakMap<Page, boolean>();

/** One pointer move in `page` (another point than the last: moving to where it is fires nothing). */
export async function revealControls(page: Page): Promise<void> {
  const there = !moved.get(page);
  moved.set(page, there);
  await page.mouse.move(there ? 4 : 8, 4);
}
