/** What the Google Meet driver runs in the page (JavaScript source; see source.ts). */
import { meetSelectors } from './selectors.js';
import { DOM_HELPERS } from '../page-scripts/dom-helpers.js';
import { pageProgram } from '../page-scripts/source.js';

const MEET_FUNCTIONS = String.raw`
function buttonWithIcon(pattern) {
  var icons = shown(S.css.icons).filter(function (icon) { return pattern.test(norm(icon.textContent)); });
  for (var i = 0; i < icons.length; i++) {
    var button = icons[i].closest(S.css.buttons);
    if (button) return button;
  }
  return null;
}
function leaveButton() { return first(S.css.leaveCall) || buttonWithIcon(S.text.leaveIcon); }
/* The call's toolbar is in the page but hidden (builds that show it only while the pointer moves). */
function controlsHidden() { return !leaveButton() && all(S.css.leaveCall).length > 0; }
/*
 * People's tiles: the self-view's "Backgrounds and effects" panel has a participant id too and is
 * nobody, labelled so on the element or, without a name label of a person's tile, in its text.
 */
function personTiles() {
  return shown(S.css.tile).filter(function (tile) {
    var label = tile.getAttribute('aria-label');
    var named = label ? norm(label) : tile.querySelector(S.css.tileName) ? '' : shownText(tile);
    return !S.text.effectsPanel.test(named);
  });
}
function captionsOffButton() { return first(S.css.captionsAreOff) || buttonWithIcon(S.text.captionsOffIcon); }

/*
 * The caption blocks, each read from its avatar (caption-blocks.ts); a block with no text yet is
 * left out until its text shows (till then, where it ends cannot be told). Blocks are rewritten
 * in place: the block element keeps its key for as long as it stays.
 */
function captionArea() { return first(S.css.captionsRegion); }
function readCaptions() {
  var region = captionArea();
  if (!region) return null;
  var keys = window.__ntBlockKeys || (window.__ntBlockKeys = { map: new WeakMap(), next: 1 });
  var blocks = [];
  all(S.css.captionAvatar, region).forEach(function (avatar) {
    var block = captionBlock(avatar, region, S.css.captionAvatar, false);
    if (!block || !block.el || !visible(block.el)) return;
    var key = keys.map.get(block.el);
    if (!key) { key = keys.next++; keys.map.set(block.el, key); }
    blocks.push({ key: key, speaker: personName(block.header.textContent), text: block.text });
  });
  return blocks;
}

/*
 * One name per person. The bot's own tile is marked on the tile or inside it, or only named "You"
 * or "<name> (You)". A presenter gets a second tile, "<name> (Presentation)": that is the same
 * person, counted only when their own tile is not on screen. \`looks\`: every other tile's look
 * (lookOf), the presentation tiles' too, for who speaks (learned in speaker-learner.ts).
 */
function readParticipants(tiles) {
  var seen = {};
  var names = [];
  var presenters = [];
  var looks = [];
  var selfFound = false;
  tiles.forEach(function (tile) {
    var id = tile.getAttribute('data-participant-id');
    if (seen[id]) return;
    seen[id] = true;
    if (tile.matches(S.css.selfTile) || tile.querySelector(S.css.selfTile)) { selfFound = true; return; }
    var label = tile.querySelector(S.css.tileName);
    var shown = clean(label ? label.textContent : tile.getAttribute('aria-label'));
    if (shown && isSelfName(shown)) { selfFound = true; return; }
    var name = personName(shown);
    if (!name) return;
    (S.text.presentationTile.test(norm(shown)) ? presenters : names).push(name);
    looks.push({ name: name, look: lookOf(tile, 'tile') });
  });
  presenters.forEach(function (name) { if (names.indexOf(name) < 0) names.push(name); });
  return { names: names, selfFound: selfFound, looks: looks };
}

function inspectScreen(state) {
  var leave = leaveButton();
  var tiles = personTiles();
  state.controlsHidden = controlsHidden();
  var captionsOn = first(S.css.captionsAreOn) || first(S.css.captionsRegion);
  var signs = (leave ? 1 : 0) + (tiles.length ? 1 : 0) + (captionsOn || captionsOffButton() ? 1 : 0);
  // Admitted takes several signs together: any one of them alone shows up elsewhere too.
  if (signs >= 2) return inCall(state, !!captionsOn, tiles);
  // The call's controls hidden until the pointer moves: the page is judged once the driver has shown them.
  if (state.controlsHidden) return state;
  var text = bodyText();
  state.outcome = terminalOutcome(text);
  if (state.outcome) { state.screen = 'terminal'; return state; }
  if (S.text.lobby.test(text)) { state.screen = 'lobby'; return state; }
  var join = joinButton();
  var name = nameField(join);
  if (name || join || state.dialog) {
    state.screen = 'prejoin';
    state.prejoin = { name: name ? name.value : null, micOn: !!first(S.css.micIsOn), camOn: !!first(S.css.cameraIsOn), joinEnabled: enabled(join), identity: accountIdentity() };
  }
  return state;
}

/*
 * The caption language (language-dialog.ts): More options -> Settings -> the Captions tab -> the
 * "Meeting language" list, where a pick applies at once.
 */
function openLanguage() {
  return openLanguageDialog(
    function () { return [['Settings', named(S.css.menuItems, S.text.settingsItem)], ['More options', first(S.css.moreOptions)]]; },
    function (dialog) { return clickAlong([['the Captions tab', named(S.css.unselectedTab, S.text.captionsTab, dialog)]]); });
}

function blurFocus() { if (document.activeElement && document.activeElement.blur) document.activeElement.blur(); return true; }
`;

export const meetScript = pageProgram(DOM_HELPERS, MEET_FUNCTIONS, meetSelectors, {
  inspect: 'inspect(arg)',
  focusName: 'focusInput(nameField(joinButton()))',
  // Both toggles at once: each is a button whose label says what a click would do.
  muteMedia: '[press(first(S.css.micIsOn)), press(first(S.css.cameraIsOn))]',
  join: 'clickJoin()',
  confirmDialog: 'press(dialogButton())',
  captionsButton: 'press(captionsOffButton())',
  openLanguage: 'openLanguage()',
  pickLanguage: 'pickLanguage(arg)',
  // Meet applies a pick at once: finishing only closes the dialog.
  finishLanguage: 'finishLanguage(arg)',
  blur: 'blurFocus()',
  leave: 'press(leaveButton())',
  observe: 'observeCaptions(readCaptions, captionArea)',
  snapshot:
    "snapshotOf(arg === 'page' ? document.body : arg === 'toolbar' ? toolbarOf(leaveButton()) : captionArea() || document.body)",
});
