/** What the Microsoft Teams driver runs in the page (JavaScript source; see source.ts). */
import { teamsSelectors } from './selectors.js';
import { DOM_HELPERS } from '../page-scripts/dom-helpers.js';
import { pageProgram } from '../page-scripts/source.js';

const TEAMS_FUNCTIONS = String.raw`
function isOn(toggle) {
  if (!toggle) return false;
  var control = toggle.matches('input') ? toggle : (toggle.querySelector('input, [role="switch"], [role="checkbox"]') || toggle);
  if (control.matches('input[type="checkbox"]')) return control.checked;
  return (control.getAttribute('aria-checked') || control.getAttribute('aria-pressed')) === 'true';
}
function flip(toggle) {
  if (!toggle || !isOn(toggle)) return false;
  var control = toggle.matches('input') ? toggle : (toggle.querySelector('input') || toggle);
  control.click();
  return true;
}
function continueButton() { return first(S.css.continueOnBrowser) || named(S.css.launcherControls, S.text.continueOnBrowser); }

/*
 * Rows of a virtualized list: row elements are recycled and placed by transform, so each row is
 * found from its text element and the rows are put in reading order by their position on screen.
 */
function captionArea() { return first(S.css.captionsRenderer) || first(S.css.captionsWindow); }
function readCaptions() {
  var list = captionArea();
  if (!list) return null;
  var rows = [];
  shown(S.css.captionText, list).forEach(function (textEl) {
    var author = rowAuthor(textEl, list);
    var text = clean(textEl.textContent);
    if (!text) return;
    rows.push({ speaker: author ? personName(author.textContent) : '', text: text, top: textEl.getBoundingClientRect().top });
  });
  rows.sort(function (a, b) { return a.top - b.top; });
  // Teams leaves out the name on a speaker's follow-up lines.
  var speaker = '';
  return rows.map(function (row) {
    speaker = row.speaker || speaker;
    return { speaker: speaker, text: row.text };
  });
}

/*
 * A row holds one caption text and its author, unless it continues the previous speaker's line,
 * however many wrapper elements stand between them: the author is in the text's closest ancestor
 * that holds one, and never in an ancestor that also holds another row's text.
 */
function rowAuthor(textEl, list) {
  for (var el = textEl.parentElement; el && el !== list; el = el.parentElement) {
    var author = el.querySelector(S.css.captionAuthor);
    if (author) return el.querySelectorAll(S.css.captionText).length === 1 ? author : null;
  }
  return null;
}

/*
 * The name is the tile's label up to its first comma; the bot's own says "(You)" or "You".
 * \`looks\`: every other tile's look (lookOf, the states its label lists after the name among
 * it), for who speaks (learned in speaker-learner.ts).
 */
function readParticipants(tiles) {
  var names = [];
  var looks = [];
  var selfFound = false;
  tiles.forEach(function (tile) {
    var shown = clean(tile.getAttribute('aria-label') || tile.textContent).split(',')[0].trim();
    if (!shown) return;
    if (isSelfName(shown)) { selfFound = true; return; }
    var name = personName(shown);
    if (!name) return;
    names.push(name);
    looks.push({ name: name, look: lookOf(tile, 'tile') });
  });
  return { names: names, selfFound: selfFound, looks: looks };
}

function inspectScreen(state) {
  var text = bodyText();
  var lobby = S.text.lobby.test(text);
  var hangup = first(S.css.hangup);
  var tiles = shown(S.css.tile);
  // The lobby has a hang-up button too; only with the call's other controls is it the call.
  if (hangup && !lobby && (first(S.css.more) || tiles.length)) return inCall(state, !!first(S.css.captionsWindow), tiles);
  state.outcome = terminalOutcome(text);
  if (state.outcome) { state.screen = 'terminal'; return state; }
  if (lobby) { state.screen = 'lobby'; return state; }
  if (continueButton()) { state.screen = 'launcher'; return state; }
  var join = joinButton();
  var name = nameField(join);
  if (name || join || state.dialog) {
    state.screen = 'prejoin';
    state.prejoin = { name: name ? name.value : null, micOn: isOn(first(S.css.micToggle)), camOn: isOn(first(S.css.cameraToggle)), joinEnabled: enabled(join), identity: accountIdentity() };
  }
  return state;
}

/* One step along More -> Captions, or More -> Language and speech -> Turn on live captions. */
function captionsStep() {
  var items = shown(S.css.menuItems);
  var pick = function (pattern) { return items.filter(function (item) { return pattern.test(norm(item.textContent)); })[0]; };
  var captions = pick(S.text.captionsItem);
  if (captions) { captions.click(); return 'captions'; }
  var language = pick(S.text.languageItem);
  if (language) { language.click(); return 'language'; }
  return press(first(S.css.more)) ? 'more' : 'none';
}

/*
 * The caption language (language-dialog.ts): the "Language settings" dialog, from the captions'
 * own "..." (Captions settings) or More -> Language and speech; a pick in its "Meeting spoken
 * language" list, then "Update" (or "Cancel" when nothing changed).
 */
function openLanguage() {
  return openLanguageDialog(function () {
    return [
      ['Language settings', named(S.css.menuItems, S.text.languageSettingsItem)],
      ['Captions settings', named(S.css.buttons, S.text.captionsSettings)],
      ['Language and speech', named(S.css.menuItems, S.text.languageItem)],
      ['More', first(S.css.more)],
    ];
  }, function () { return { clicked: null }; });
}
`;

export const teamsScript = pageProgram(DOM_HELPERS, TEAMS_FUNCTIONS, teamsSelectors, {
  inspect: 'inspect(arg)',
  continue: 'press(continueButton())',
  confirmDialog: 'press(dialogButton())',
  focusName: 'focusInput(nameField(joinButton()))',
  muteMedia: '[flip(first(S.css.micToggle)), flip(first(S.css.cameraToggle))]',
  join: 'clickJoin()',
  captionsStep: 'captionsStep()',
  openLanguage: 'openLanguage()',
  pickLanguage: 'pickLanguage(arg)',
  finishLanguage: 'finishLanguage(arg)',
  leave: 'press(first(S.css.hangup))',
  observe: 'observeCaptions(readCaptions, captionArea)',
  snapshot:
    "snapshotOf(arg === 'page' ? document.body : arg === 'toolbar' ? toolbarOf(first(S.css.hangup)) : captionArea() || document.body)",
});
