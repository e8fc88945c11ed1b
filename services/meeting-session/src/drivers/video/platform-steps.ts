/**
 * The `platform` step of BOT_VIDEO_SAVINGS: what each platform offers a participant who does not
 * watch, found by accessible names and visible text (the real builds' wordings):
 *
 * - Teams: More -> "Turn off incoming video" (Microsoft's support pages' wording);
 * - Zoom: More ("More meeting control") -> "Stop Incoming Video";
 * - Meet: More options -> "Change layout" -> the "Adjust view" dialog: "Tiled", the "Tiles"
 *   slider to its least, closed. Meet still sends the tiles that layout shows.
 *
 * One click per call, the next one on the next reading (menus open when they open); the answer
 * says whether the step is done (true), under way (null: clicked, come again), held back ('wait':
 * a menu of the driver's own steps is open; clicking More would close it) or impossible here (false).
 */
import type { Platform } from '@notetaker/contracts';

const FIND = String.raw`
  function visible(el) {
    if (!el || !el.isConnected) return false;
    var r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  function named(selector, pattern) {
    var all = document.querySelectorAll(selector);
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      var name = (el.getAttribute('aria-label') || el.textContent || '').trim();
      if (pattern.test(name) && visible(el)) return el;
    }
    return null;
  }
  function click(el) { el.click(); return null; }
  // A menu the driver's own steps opened (captions, the transcript): theirs to finish first.
  function menuOpen() {
    var menus = document.querySelectorAll('[role="menu"]');
    for (var i = 0; i < menus.length; i++) if (visible(menus[i])) return true;
    return false;
  }
  function menuStep(more, item, done) {
    var it = named('[role="menuitem"], [role="menuitemcheckbox"]', item);
    if (it) { it.click(); return true; }
    if (named('[role="menuitem"], [role="menuitemcheckbox"]', done)) return true;
    if (menuOpen()) return 'wait';
    var button = named('button', more);
    return button ? click(button) : false;
  }
`;

const STEPS: Record<Platform, string> = {
  teams: `menuStep(/^More( actions)?$/i, /^Turn off incoming video$/i, /^Turn on incoming video$/i)`,
  zoom: `menuStep(/^More( meeting control)?$/i, /^Stop Incoming Video$/i, /^Start Incoming Video$/i)`,
  google_meet: String.raw`(function () {
    var dialog = named('[role="dialog"]', /^Adjust view$/i);
    if (!dialog) {
      var item = named('[role="menuitem"]', /Change layout/i);
      if (item) return click(item);
      if (menuOpen()) return 'wait';
      var more = named('button', /^More options$/i);
      return more ? click(more) : false;
    }
    var radios = dialog.querySelectorAll('input[type="radio"], [role="radio"]');
    for (var i = 0; i < radios.length; i++) {
      var label = (radios[i].getAttribute('aria-label') || (radios[i].closest('label') || {}).textContent || '').trim();
      if (/^Tiled/i.test(label)) {
        if (!(radios[i].checked || radios[i].getAttribute('aria-checked') === 'true')) radios[i].click();
        break;
      }
    }
    var slider = dialog.querySelector('input[type="range"], [role="slider"]');
    if (slider && slider.tagName === 'INPUT') {
      var set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
      set.call(slider, slider.min || '1');
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      slider.dispatchEvent(new Event('change', { bubbles: true }));
    } else if (slider) {
      slider.focus();
      slider.dispatchEvent(new KeyboardEvent('keydown', { key: 'Home', code: 'Home', bubbles: true }));
    }
    var close = named('button', /^Close$/i);
    if (close) close.click();
    return true;
  })()`,
};

/** The page expression for one move of the platform's step. */
export function platformVideoStep(platform: Platform): string {
  return `(function () {\n'use strict';\n${FIND}\nreturn ${STEPS[platform]};\n})()`;
}
