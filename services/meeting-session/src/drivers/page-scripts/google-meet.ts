/** What the Google Meet driver runs in the page (JavaScript source; see source.ts). */
import { meetSelectors } from '../selectors/google-meet.js';
import { DOM_HELPERS } from './dom-helpers.js';
import { pageProgram } from './source.js';

const MEET_FUNCTIONS = String.raw`
function nameInput() {
  var named = first(S.css.nameInput);
  if (named) return named;
  var inputs = shown(S.css.textInput);
  return inputs.length === 1 ? inputs[0] : null;
}
function joinButton() { return outsideDialogs(byText(S.css.buttons, S.text.joinButton))[0] || null; }
function buttonWithIcon(pattern) {
  var icons = shown(S.css.icons).filter(function (icon) { return pattern.test(norm(icon.textContent)); });
  for (var i = 0; i < icons.length; i++) {
    var button = icons[i].closest(S.css.buttons);
    if (button) return button;
  }
  return null;
}
function leaveButton() { return first(S.css.leaveCall) || buttonWithIcon(S.text.leaveIcon); }
function captionsOffButton() { return first(S.css.captionsAreOff) || buttonWithIcon(S.text.captionsOffIcon); }

/* A block is the avatar's header (speaker name) plus the text beside it, rewritten in place. */
function readCaptions() {
  var region = first(S.css.captionsRegion);
  if (!region) return null;
  var keys = window.__ntBlockKeys || (window.__ntBlockKeys = { map: new WeakMap(), next: 1 });
  var blocks = [];
  all(S.css.captionAvatar, region).forEach(function (avatar) {
    var header = avatar.parentElement;
    var block = header && header.parentElement;
    if (!block || !region.contains(block) || block === region || !visible(block)) return;
    var speaker = clean(header.textContent);
    if (!speaker) return;
    var text = clean(Array.prototype.filter.call(block.children, function (child) { return child !== header; })
      .map(function (child) { return child.textContent; }).join(' '));
    var key = keys.map.get(block);
    if (!key) { key = keys.next++; keys.map.set(block, key); }
    blocks.push({ key: key, speaker: speaker, text: text });
  });
  return blocks;
}

function readParticipants(tiles) {
  var seen = {};
  var names = [];
  var selfFound = false;
  tiles.forEach(function (tile) {
    var id = tile.getAttribute('data-participant-id');
    if (seen[id]) return;
    seen[id] = true;
    if (tile.querySelector(S.css.selfTile)) { selfFound = true; return; }
    var label = tile.querySelector(S.css.tileName);
    var name = clean(label ? label.textContent : tile.getAttribute('aria-label'));
    if (name) names.push(name);
  });
  return { names: names, selfFound: selfFound };
}

function inspect() {
  var signIn = signInState();
  if (signIn) return signIn;
  var state = baseState();
  var leave = leaveButton();
  var tiles = shown(S.css.tile);
  var captionsOn = first(S.css.captionsAreOn) || first(S.css.captionsRegion);
  var signs = (leave ? 1 : 0) + (tiles.length ? 1 : 0) + (captionsOn || captionsOffButton() ? 1 : 0);
  // Admitted takes several signs together: any one of them alone shows up elsewhere too.
  if (signs >= 2) {
    state.screen = 'in_call';
    state.captionsOn = !!captionsOn;
    state.captions = readCaptions();
    state.participants = readParticipants(tiles);
    return state;
  }
  var text = bodyText();
  state.outcome = terminalOutcome(text);
  if (state.outcome) { state.screen = 'terminal'; return state; }
  if (S.text.lobby.test(text)) { state.screen = 'lobby'; return state; }
  var name = nameInput();
  var join = joinButton();
  if (name || join || state.dialog) {
    state.screen = 'prejoin';
    state.prejoin = { name: name ? name.value : null, micOn: !!first(S.css.micIsOn), camOn: !!first(S.css.cameraIsOn), joinEnabled: enabled(join) };
  }
  return state;
}

function run(action) {
  switch (action) {
    case 'inspect': return inspect();
    case 'focusName': return focusInput(nameInput());
    case 'muteMedia':
      // Both toggles at once: each is a button whose label says what a click would do.
      return [press(first(S.css.micIsOn)), press(first(S.css.cameraIsOn))];
    case 'join': { var join = joinButton(); return enabled(join) && press(join); }
    case 'confirmDialog': return press(dialogButton());
    case 'captionsButton': return press(captionsOffButton());
    case 'blur': if (document.activeElement && document.activeElement.blur) document.activeElement.blur(); return true;
    case 'leave': return press(leaveButton());
    case 'observe': return observeCaptions(readCaptions);
  }
  throw new Error('unknown action ' + action);
}
`;

export const meetScript = pageProgram(DOM_HELPERS, MEET_FUNCTIONS, meetSelectors);
