/**
 * Finds the call's microphone button by what it says (its accessible name: aria-label, else its
 * text; never a class or an attribute only our simulators set) and reads its state from the same
 * words: a button that offers to turn the microphone off means it is on. `aria-pressed`, where a
 * build sets it, has the last word. With `want` (true/false) the button is clicked when its state
 * differs. A page script of its own (drivers/microphones.ts has each platform's wordings).
 */
import { jsLiteral } from './source.js';

export interface MicrophoneWordings {
  /** Names of the button while the microphone is on ("Turn off microphone", "Mute"). */
  on: RegExp[];
  /** Names of the button while it is off ("Turn on microphone", "Unmute"). */
  off: RegExp[];
}

export type MicrophoneReading = { state: 'on' | 'off' | 'none'; clicked: boolean };

export function microphoneScript(wordings: MicrophoneWordings, want: boolean | null): string {
  return `(function (W, want) {
  'use strict';
  function nameOf(el) {
    var label = el.getAttribute('aria-label');
    return (label || el.textContent || '').replace(/\\s+/g, ' ').trim();
  }
  function visible(el) {
    var r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  }
  function matches(list, name) {
    return list.some(function (re) { return re.test(name); });
  }
  var candidates = document.querySelectorAll('button, [role="button"], div[aria-label]');
  var found = null;
  var state = 'none';
  for (var i = 0; i < candidates.length && !found; i++) {
    var el = candidates[i];
    if (el.closest('[role="dialog"]') || !visible(el)) continue;
    var name = nameOf(el);
    if (matches(W.on, name)) { found = el; state = 'on'; }
    else if (matches(W.off, name)) { found = el; state = 'off'; }
  }
  if (found && found.hasAttribute('aria-pressed') && /microphone|mic/i.test(nameOf(found))) {
    state = found.getAttribute('aria-pressed') === 'true' ? 'on' : 'off';
  }
  var clicked = false;
  if (found && want !== null && (state === 'on') !== want) {
    found.click();
    clicked = true;
  }
  return { state: state, clicked: clicked };
})(${jsLiteral(wordings)}, ${JSON.stringify(want)})`;
}
