/** What the Zoom driver runs in the page (JavaScript source; see source.ts). */
import { zoomSelectors } from './selectors.js';
import { DOM_HELPERS } from '../page-scripts/dom-helpers.js';
import { pageProgram } from '../page-scripts/source.js';

const ZOOM_FUNCTIONS = String.raw`
function button(pattern) { return named(S.css.buttons, pattern); }
/* Zoom's React client greys Join out by a class until a name is typed with real keys. */
function joinEnabled(join) { return enabled(join) && !join.classList.contains(S.css.joinDisabledClass); }
/* The passcode field: the password input, or the field labelled a passcode (prejoin-form.ts). */
function passcodeField() { return outsideDialogs(shown(S.css.textInput)).filter(isPasscodeField)[0] || null; }

/*
 * What answers the screens before the call, by meaning: the permission dialog's way on without
 * microphone and camera, the terms' "I Agree" (a button beside words about terms), a cookie
 * banner's "Accept Cookies" (OneTrust's button as a hint); else a pop-up's confirming button.
 * Never a button that grants microphone or camera: the bot joins without them.
 */
function besideText(el, pattern) {
  for (var box = el.parentElement, i = 0; box && i < 5; box = box.parentElement, i++) if (pattern.test(norm(box.textContent))) return true;
  return false;
}
function answerButton() {
  var controls = shown(S.css.buttons).filter(enabled);
  var withName = function (pattern) { return controls.filter(function (b) { return pattern.test(accessibleName(b)); }); };
  var answer = withName(S.text.withoutDevices)[0]
    || withName(S.text.agreeTerms).filter(function (b) { return besideText(b, S.text.termsText); })[0]
    || first(S.css.cookieHint) || withName(S.text.acceptCookies)[0] || dialogButton();
  return answer && !S.text.grantsDevices.test(accessibleName(answer)) ? answer : null;
}
function leaveButton() { return outsideDialogs(shown(S.css.buttons).filter(function (b) { return S.text.leave.test(accessibleName(b)); }))[0] || null; }
function panel(pattern) { return named(S.css.panels, pattern); }
function menuItem(pattern) { return byText(S.css.menuItems, pattern)[0] || null; }
function browserLink() { return byText(S.css.links, S.text.joinFromBrowser)[0] || null; }

/* The launch page: "Join from your browser", shown at once or only after "Launch Meeting". */
function continueToBrowser() {
  var link = browserLink();
  if (link) { link.click(); return true; }
  return press(byText(S.css.buttons, S.text.launchMeeting)[0]);
}

/*
 * A caption line (and a transcript entry) is a caption block (caption-blocks.ts): the speaker's
 * avatar, the name beside it when shown (the time of day stripped), the text beside them. With no
 * text beside the header, the header is the line itself: an avatar and the text, no name.
 */
function headerName(header) {
  var copy = header.cloneNode(true);
  all(S.css.time, copy).forEach(function (time) { time.remove(); });
  return clean(copy.textContent);
}
function lineOf(avatar, area) {
  var block = captionBlock(avatar, area, S.css.avatar, true);
  if (!block) return null;
  return block.el ? { name: headerName(block.header), text: block.text } : { name: null, text: clean(block.header.textContent) };
}
function linesOf(area) {
  var lines = [];
  all(S.css.avatar, area).forEach(function (avatar) {
    var line = lineOf(avatar, area);
    if (line && line.text) lines.push(line);
  });
  return lines;
}

/* The full transcript panel's entries, oldest first: who said what, by name. */
function transcript() {
  var open = panel(S.text.transcriptPanel);
  if (!open) return null;
  var entries = [];
  shown(S.css.listItems, open).forEach(function (item) {
    linesOf(item).forEach(function (line) { if (line.name) entries.push({ speaker: personName(line.name), text: line.text }); });
  });
  return entries;
}

/*
 * Whose words an overlay line is, when it shows only an avatar: the newest transcript entry with
 * the same words, or one the line's words begin or end (either may be a word ahead of the other).
 */
function speakerOf(text, entries) {
  var words = norm(text);
  for (var i = entries.length - 1; i >= 0; i--) if (norm(entries[i].text) === words) return entries[i].speaker;
  for (var j = entries.length - 1; j >= 0; j--) {
    var other = norm(entries[j].text);
    if (other.indexOf(words) === 0 || words.indexOf(other) === 0 || other.slice(-words.length) === words) return entries[j].speaker;
  }
  return null;
}

/*
 * The overlay's lines with their speakers. A line whose speaker cannot be told yet (the transcript
 * panel shut, or a moment behind) makes the whole reading wait: a line left out would look to the
 * tracker like a line gone, and come back as a new one.
 */
function captionArea() { return first(S.css.captionsOverlay); }
function readCaptions() {
  var area = captionArea();
  if (!area) return null;
  var lines = linesOf(area);
  var entries = null;
  var rows = [];
  for (var i = 0; i < lines.length; i++) {
    var speaker = lines[i].name ? personName(lines[i].name) : null;
    if (!speaker) {
      entries = entries || transcript();
      speaker = entries && speakerOf(lines[i].text, entries);
    }
    if (!speaker) return null;
    rows.push({ speaker: speaker, text: lines[i].text });
  }
  return rows;
}

/* A label up to its first comma outside brackets: "Bob (Host, Guest), audio muted" -> "Bob (Host, Guest)". */
function beforeFirstComma(label) {
  var depth = 0;
  for (var i = 0; i < label.length; i++) {
    var c = label.charAt(i);
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) return label.slice(0, i).trim();
  }
  return label.trim();
}

/*
 * The participants panel: each item's label up to its first comma; the bot's own says "(me)"; no
 * names while the panel is shut (null items). \`looks\`: every other item's look, and every video
 * tile's but the bot's, by the name in its footer (lookOf), for who speaks (speaker-learner.ts).
 */
function participantsPanel() { return panel(S.text.participantsPanel); }
function readParticipants(items) {
  var names = items ? [] : null;
  var looks = [];
  var selfFound = false;
  (items || []).forEach(function (item) {
    var shownName = beforeFirstComma(clean(item.getAttribute('aria-label') || item.textContent));
    if (!shownName) return;
    if (isSelfName(shownName)) { selfFound = true; return; }
    var name = personName(shownName);
    if (!name) return;
    names.push(name);
    looks.push({ name: name, look: lookOf(item, 'entry') });
  });
  shown(S.css.videoTileName).forEach(function (footer) {
    var shownName = clean(footer.textContent);
    if (!shownName || isSelfName(shownName)) return;
    var tile = footer.closest(S.css.videoTile) || footer.parentElement;
    looks.push({ name: personName(shownName), look: lookOf(tile, 'tile') });
  });
  return { names: names, selfFound: selfFound, looks: looks };
}

function prejoinState() {
  var join = joinButton();
  var name = nameField(join);
  var passcode = passcodeField();
  if (!name && !passcode && !join) return null;
  return { name: name ? name.value : null, passcode: passcode ? passcode.value : null,
    micOn: !!button(S.text.micIsOn), camOn: !!button(S.text.cameraIsOn), joinEnabled: joinEnabled(join), identity: accountIdentity() };
}

function inspectScreen(state) {
  var answer = answerButton();
  state.dialog = answer ? accessibleName(answer) : null;
  if (S.text.zoomHost.test(location.hostname) && S.text.signInPath.test(location.pathname)) {
    state.screen = 'sign_in';
    state.outcome = 'guest_refused';
    return state;
  }
  var text = bodyText();
  var waiting = S.text.lobby.test(text) || S.text.notStarted.test(text);
  // The waiting screens have a Leave button too; only with the participants control is it the call.
  if (!waiting && leaveButton() && button(S.text.participantsButton)) {
    var list = participantsPanel();
    return inCall(state, !!captionArea(), list ? shown(S.css.listItems, list) : null);
  }
  state.outcome = terminalOutcome(text);
  if (state.outcome) { state.screen = 'terminal'; return state; }
  if (S.text.notStarted.test(text)) { state.screen = 'not_started'; return state; }
  if (S.text.lobby.test(text)) { state.screen = 'lobby'; return state; }
  if (browserLink() || byText(S.css.buttons, S.text.launchMeeting)[0]) { state.screen = 'launcher'; return state; }
  state.prejoin = prejoinState();
  if (state.prejoin || state.dialog) state.screen = 'prejoin';
  return state;
}

/*
 * One step towards what the bot needs in the call, in order: the participants panel (who is
 * there), captions on (the CC menu's "Show Captions", or the toggle), the full transcript (the
 * speakers' names when the overlay shows avatars only). What it clicked, or 'none'.
 */
function callStep() {
  if (!participantsPanel() && press(button(S.text.participantsButton))) return 'more';
  var show = menuItem(S.text.showCaptions);
  if (!captionArea()) {
    if (show) { show.click(); return 'captions'; }
    var toggle = button(S.text.showCaptions);
    if (enabled(toggle)) { toggle.click(); return 'captions'; }
    var menu = button(S.text.captionsMenu);
    return enabled(menu) && press(menu) ? 'more' : 'none';
  }
  if (panel(S.text.transcriptPanel)) return 'none';
  var view = menuItem(S.text.viewTranscript);
  if (view) { view.click(); return 'more'; }
  var opener = button(S.text.captionsMenu);
  return enabled(opener) && press(opener) ? 'more' : 'none';
}

/*
 * The caption language (language-dialog.ts): the captions menu's "Translated
 * Captions" where the build has it, else its "Caption Settings", opens a dialog; a pick in its
 * "Speaking language" list, then "Save" (or "Cancel" when nothing changed). A settings dialog
 * without that list (a build whose "Caption Settings" holds only the captions' look) is closed, so
 * that the next step looks for the other way in.
 */
function openLanguage() {
  return openLanguageDialog(function () {
    var menu = button(S.text.captionsMenu);
    return [
      ['Translated Captions', menuItem(S.text.translatedCaptionsItem)],
      ['Caption Settings', menuItem(S.text.captionSettingsItem)],
      ['the captions menu', enabled(menu) ? menu : null],
    ];
  }, function (dialog) {
    return press(named(S.css.buttons, S.text.cancelLanguage, dialog)) ? { clicked: 'Cancel (no speaking language there)' } : { clicked: null };
  });
}

/* Leave, and confirm it ("Leave Meeting"). */
function leave() {
  if (!press(leaveButton())) return false;
  var dialogs = shown(S.css.dialogs);
  for (var i = 0; i < dialogs.length; i++) {
    var confirm = byText(S.css.buttons, S.text.leaveConfirm, dialogs[i])[0];
    if (confirm) { confirm.click(); break; }
  }
  return true;
}
`;

export const zoomScript = pageProgram(DOM_HELPERS, ZOOM_FUNCTIONS, zoomSelectors, {
  inspect: 'inspect(arg)',
  continue: 'continueToBrowser()',
  confirmDialog: 'press(answerButton())',
  focusName: 'focusInput(nameField(joinButton()))',
  focusPasscode: 'focusInput(passcodeField())',
  muteMedia: '[press(button(S.text.micIsOn)), press(button(S.text.cameraIsOn))]',
  join: 'clickJoin()',
  captionsStep: 'callStep()',
  openLanguage: 'openLanguage()',
  pickLanguage: 'pickLanguage(arg)',
  finishLanguage: 'finishLanguage(arg)',
  leave: 'leave()',
  observe: 'observeCaptions(readCaptions, captionArea)',
  snapshot:
    "snapshotOf(arg === 'page' ? document.body : arg === 'toolbar' ? toolbarOf(leaveButton()) : captionArea() || document.body)",
});
