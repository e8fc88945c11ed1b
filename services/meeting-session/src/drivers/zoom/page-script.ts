/** What the Zoom driver runs in the page (JavaScript source; see source.ts). */
import { zoomSelectors } from './selectors.js';
import { DOM_HELPERS } from '../page-scripts/dom-helpers.js';
import { pageProgram } from '../page-scripts/source.js';

const ZOOM_FUNCTIONS = String.raw`
function button(pattern) { return named(S.css.buttons, pattern); }
function joinButton() {
  return outsideDialogs(byText(S.css.buttons, S.text.joinButton))[0] || outsideDialogs(shown(S.css.joinHint))[0] || null;
}
function joinEnabled(join) { return enabled(join) && !join.classList.contains(S.css.joinDisabledClass); }

/*
 * The pre-join's fields by what they are: its visible text and password inputs (outside pop-ups).
 * The passcode: the hinted id, else the password input or the field labelled a passcode. The
 * name: the hinted id, else the other field labelled a name, else the form's one other field
 * (or, of several, the one nearest the Join button).
 */
function fields() { return outsideDialogs(shown(S.css.fields)); }
function isPasscode(input) { return input.type === 'password' || S.text.passcodeLabel.test(fieldLabel(input)); }
function passcodeField() { return first(S.css.passcodeHint) || fields().filter(isPasscode)[0] || null; }
function nameField() {
  var hinted = first(S.css.nameHint);
  if (hinted) return hinted;
  var others = fields().filter(function (input) { return !isPasscode(input); });
  var named = others.filter(function (input) { return S.text.nameLabel.test(fieldLabel(input)); })[0];
  return named || (others.length === 1 ? others[0] : nearest(joinButton(), others));
}
/* Of \`els\`, the one alone in the smallest part of the page that holds \`anchor\` and any of them. */
function nearest(anchor, els) {
  for (var box = anchor && anchor.parentElement; box; box = box.parentElement) {
    var inside = els.filter(function (el) { return box.contains(el); });
    if (inside.length) return inside.length === 1 ? inside[0] : null;
  }
  return null;
}

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
function hasText(el) { return /\S/.test(el.textContent); }

/* The launch page: "Join from your browser", shown at once or only after "Launch Meeting". */
function continueToBrowser() {
  var link = browserLink();
  if (link) { link.click(); return true; }
  return press(byText(S.css.buttons, S.text.launchMeeting)[0]);
}

/*
 * A caption line (and a transcript entry) starts with the speaker's avatar; the speaker's name,
 * when shown, is beside it in the line's header, and the text beside the header, however many
 * wrapper elements stand between them. From the avatar: the header is its closest ancestor
 * showing text; the line is the header's closest ancestor with text outside the header's branch.
 * When no ancestor has such text, the header is the line itself: an avatar and the text, no name.
 * An ancestor holding a second avatar spans several lines and is never taken for one.
 */
function avatarCount(el) { return el.querySelectorAll(S.css.avatar).length; }
function textBeside(el, branch) {
  var text = '';
  for (var i = 0; i < el.childNodes.length; i++) if (!el.childNodes[i].contains(branch)) text += ' ' + el.childNodes[i].textContent;
  return clean(text);
}
function headerName(header) {
  var copy = header.cloneNode(true);
  all(S.css.time, copy).forEach(function (time) { time.remove(); });
  return clean(copy.textContent);
}
function lineOf(avatar, area) {
  var header = avatar.parentElement;
  while (header && header !== area && !hasText(header)) header = header.parentElement;
  if (!header || avatarCount(header) !== 1) return null;
  for (var parent = header.parentElement; parent && area.contains(parent); parent = parent.parentElement) {
    if (avatarCount(parent) !== 1) break;
    var text = textBeside(parent, header);
    if (text) return { name: headerName(header), text: text };
    if (parent === area) break;
  }
  return header === area ? null : { name: null, text: clean(header.textContent) };
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

/* The participants panel: each item's label up to its first comma; the bot's own says "(me)". */
function participantsPanel() { return panel(S.text.participantsPanel); }
function readParticipants(items) {
  var names = [];
  var speaking = [];
  var selfFound = false;
  items.forEach(function (item) {
    var label = clean(item.getAttribute('aria-label') || item.textContent);
    var shownName = beforeFirstComma(label);
    if (!shownName) return;
    if (isSelfName(shownName)) { selfFound = true; return; }
    var name = personName(shownName);
    if (!name) return;
    names.push(name);
    if (S.text.speakingLabel.test(label) || item.getAttribute('data-speaking') === 'true') speaking.push(name);
  });
  return { names: names, selfFound: selfFound, speaking: speaking };
}

function prejoinState() {
  var name = nameField();
  var passcode = passcodeField();
  var join = joinButton();
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
    state = inCall(state, !!captionArea(), []);
    var list = participantsPanel();
    state.participants = list ? readParticipants(shown(S.css.listItems, list)) : null;
    return state;
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
 * The caption language, one step per call (caption-language.ts): the captions menu's "Translated
 * Captions" where the build has it, else its "Caption Settings", opens a dialog; a pick in its
 * "Speaking language" list, then "Save" (or "Cancel" when nothing changed). A settings dialog
 * without that list (a build whose "Caption Settings" holds only the captions' look) is closed, so
 * that the next step looks for the other way in.
 */
function languageDialog() { return named(S.css.dialogs, S.text.languageDialog); }
function openLanguage() {
  var dialog = languageDialog();
  if (dialog) {
    var list = languageList(dialog);
    if (list) return list;
    return press(named(S.css.buttons, S.text.cancelLanguage, dialog)) ? { clicked: 'Cancel (no speaking language there)' } : { clicked: null };
  }
  var menu = button(S.text.captionsMenu);
  return clickAlong([
    ['Translated Captions', menuItem(S.text.translatedCaptionsItem)],
    ['Caption Settings', menuItem(S.text.captionSettingsItem)],
    ['the captions menu', enabled(menu) ? menu : null],
  ]);
}
function finishLanguage(apply) {
  var dialog = languageDialog();
  return press(dialog && named(S.css.buttons, apply ? S.text.applyLanguage : S.text.cancelLanguage, dialog)) || press(document.body);
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
  inspect: 'inspect()',
  continue: 'continueToBrowser()',
  confirmDialog: 'press(answerButton())',
  focusName: 'focusInput(nameField())',
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
