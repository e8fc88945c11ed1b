/** Helpers every page script shares (JavaScript source; see source.ts for why). */
import { CAPTION_BLOCK_HELPERS } from './caption-blocks.js';
import { JOIN_SCREEN_HELPERS } from './join-screens.js';
import { LANGUAGE_DIALOG_HELPERS } from './language-dialog.js';
import { PREJOIN_FORM_HELPERS } from './prejoin-form.js';

export const DOM_HELPERS =
  JOIN_SCREEN_HELPERS +
  PREJOIN_FORM_HELPERS +
  CAPTION_BLOCK_HELPERS +
  LANGUAGE_DIALOG_HELPERS +
  String.raw`
function norm(value) {
  return String(value == null ? '' : value)
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\u2026/g, '...')
    .replace(/\s+/g, ' ')
    .trim();
}
/* Text as shown, for reporting: only whitespace is tidied (norm() is for matching). */
function clean(value) { return String(value == null ? '' : value).replace(/\s+/g, ' ').trim(); }
/*
 * Rendered and not hidden. checkVisibility() needs the page's styles, not its layout, so a reading
 * right after a caption mutation does not force a layout of the whole page.
 */
function visible(el) {
  if (!el || !el.isConnected) return false;
  if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true });
  if (!el.getClientRects().length) return false;
  var style = getComputedStyle(el);
  return style.visibility !== 'hidden' && style.display !== 'none';
}
/*
 * A person's name without the labels the platform writes after it (S.text.nameSuffix: "(Guest)",
 * "(Presentation)"...), so one person reads the same on every tile and caption.
 */
function personName(value) {
  var name = clean(value);
  for (var before = ''; before !== name; ) { before = name; name = name.replace(S.text.nameSuffix, '').trim(); }
  return name;
}
/* The bot's own tile told by its name alone: "You", "<name> (You)" (S.text.selfName). */
function isSelfName(value) { return S.text.selfName.test(norm(value)); }
function all(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }
function shown(selector, root) { return all(selector, root).filter(visible); }
function first(selector, root) { return shown(selector, root)[0] || null; }
function byText(selector, pattern, root) {
  return shown(selector, root).filter(function (el) { return pattern.test(norm(el.textContent)); });
}
function enabled(el) { return !!el && !el.disabled && el.getAttribute('aria-disabled') !== 'true'; }
function press(el) { if (!el) return false; el.click(); return true; }
function bodyText() { return norm(document.body ? document.body.innerText : ''); }
function outsideDialogs(els) { return els.filter(function (el) { return !el.closest(S.css.dialogs); }); }
function nextSeq() { window.__ntSeq = (window.__ntSeq || 0) + 1; return window.__ntSeq; }
function terminalOutcome(text) {
  for (var i = 0; i < S.terminal.length; i++) if (S.terminal[i][1].test(text)) return S.terminal[i][0];
  return null;
}
function dialogButton() {
  var dialogs = shown(S.css.dialogs);
  for (var i = 0; i < dialogs.length; i++) {
    var button = byText(S.css.buttons, S.text.dialogConfirm, dialogs[i]).filter(enabled)[0];
    if (button) return button;
  }
  return null;
}
function baseState() {
  var dialog = dialogButton();
  return { seq: nextSeq(), readAt: Date.now(), url: location.href, screen: 'unknown', outcome: null, dialog: dialog ? norm(dialog.textContent) : null,
    prejoin: null, captionsOn: false, captions: null, participants: null, observing: !!window.__ntObserver,
    areaChanges: window.__ntAreaChanges || 0 };
}
/*
 * The platform's sign-in page: a guest is refused (the meeting wants an account), or a signed-in
 * bot's storage state is no longer accepted. The driver knows which of the two it is.
 */
function signInState() {
  if (!S.text.signInHost.test(location.hostname)) return null;
  var state = baseState();
  state.screen = 'sign_in';
  state.outcome = 'guest_refused';
  return state;
}
/*
 * What the page shows: the sign-in page, or else what the platform's inspectScreen(state) makes of
 * the base state, and a screen it does not know told by what it is (screenByMeaning); an end
 * screen with its heading. The platform's functions define inspectScreen, readCaptions and readParticipants.
 */
function inspect(options) {
  READ_LOOKS = !!(options && options.looks);
  var state = signInState() || screenByMeaning(inspectScreen(baseState()));
  // An end screen's heading says which (for the failure's detail): "An encryption error occurred".
  if (state.screen === 'terminal' && !state.heading) {
    var heading = first(S.screens.css.headings);
    state.heading = heading ? clean(heading.textContent).slice(0, 80) || null : null;
  }
  return state;
}
/* The call: its captions and the participants of its tiles, as the platform reads them. */
function inCall(state, captionsOn, tiles) {
  state.screen = 'in_call';
  state.captionsOn = captionsOn;
  state.captions = readCaptions();
  state.participants = readParticipants(tiles);
  return state;
}
/*
 * A tile's look as a person sees it, in tokens; which of them mean "speaking" is learned per
 * meeting (transcription/speaker-learner.ts), since builds draw that their own way and change it.
 * For the tile and every element in it, by its place in the tile (\`prefix\` first): its classes;
 * the outline, border, shadow and opacity drawn on it (or on the ::before/::after of the tile and
 * its children); an icon's text (a ligature such as "mic_off"); a level attribute, 0 or not; that
 * it is hidden, moving (its inline style changed since the last look: bars that follow the voice)
 * or animated. And the states its
 * label lists after the name ("muted", "speaking"). Never the name or other text: the same look
 * reads the same on every person's tile.
 */
/* A reading of a tile costs about 0.1 ms an element (computed styles): a real build's tile has dozens. */
var LOOK_MAX_ELEMENTS = 50;
/* Set by inspect(): a reading that is not asked for the looks reads none (every tile's look is []). */
var READ_LOOKS = false;
var ICON_TEXT = /^[a-z]+(_[a-z]+)*$/;
function lookOf(tile, prefix) {
  var tokens = [];
  if (!READ_LOOKS) return tokens;
  var inline = window.__ntLooks || (window.__ntLooks = new WeakMap());
  var animated = document.getAnimations ? document.getAnimations().filter(function (a) { return a.playState === 'running'; })
    .map(function (a) { return a.effect && a.effect.target; }) : [];
  var count = 0;
  (function walk(el, path, depth) {
    if (count++ >= LOOK_MAX_ELEMENTS) return;
    if (!visible(el)) { tokens.push(path + ':hidden'); return; }
    for (var i = 0; i < el.classList.length; i++) tokens.push(path + ':c:' + el.classList[i]);
    var drawn = drawnOf(getComputedStyle(el));
    if (drawn) tokens.push(path + ':d:' + drawn);
    // A frame drawn as a pseudo-element is the tile's own or its frame's (cheaper than every element's).
    if (depth <= 1) ['::before', '::after'].forEach(function (pseudo) {
      var style = getComputedStyle(el, pseudo);
      var shows = style.content !== 'none' && style.content !== 'normal' && drawnOf(style);
      if (shows) tokens.push(path + pseudo + ':d:' + shows);
    });
    if (!el.children.length && ICON_TEXT.test(norm(el.textContent))) tokens.push(path + ':t:' + norm(el.textContent));
    var level = el.getAttribute('data-audio-level');
    if (level !== null) tokens.push(path + ':level:' + (Number(level) > 0 ? 'on' : 'off'));
    var style = el.getAttribute('style') || '';
    if (inline.has(el) && inline.get(el) !== style) tokens.push(path + ':~');
    inline.set(el, style);
    if (animated.indexOf(el) >= 0) tokens.push(path + ':anim');
    for (var c = 0; c < el.children.length; c++) walk(el.children[c], path + '.' + c, depth + 1);
  })(tile, prefix, 0);
  clean(tile.getAttribute('aria-label')).split(',').slice(1).forEach(function (state) {
    if (state.trim()) tokens.push(prefix + ':l:' + norm(state).toLowerCase());
  });
  return tokens;
}
/* What is drawn around an element: its outline, borders, shadow, and opacity below 1. */
function drawnOf(style) {
  var parts = [];
  if (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) parts.push('outline ' + style.outlineWidth + ' ' + style.outlineColor);
  ['Top', 'Right', 'Bottom', 'Left'].forEach(function (side) {
    var width = style['border' + side + 'Width'];
    if (style['border' + side + 'Style'] !== 'none' && parseFloat(width) > 0) parts.push(side + ' ' + width + ' ' + style['border' + side + 'Color']);
  });
  if (style.boxShadow && style.boxShadow !== 'none') parts.push('shadow ' + style.boxShadow);
  if (style.opacity !== '1') parts.push('opacity ' + style.opacity);
  return parts.join('; ');
}
/*
 * The signed-in identity the page shows on its account button, found by its name
 * (S.text.accountButton), or null (a guest): the name after the label's words (S.text.accountLabel:
 * "Account manager for <name>", "Google Account: <name> (<email>)"), else, where the label names
 * nobody ("Your profile, status Available"), the name of the avatar inside the button.
 */
function accountIdentity() {
  var button = named(S.css.buttons, S.text.accountButton);
  if (!button) return null;
  var label = accessibleName(button);
  if (S.text.accountLabel.test(label)) return label.replace(S.text.accountLabel, '') || null;
  var avatar = button.querySelector('[role="img"][aria-label], img[alt]');
  return (avatar && norm(avatar.getAttribute('aria-label') || avatar.getAttribute('alt'))) || null;
}
/* The join button (prejoin-form.ts) pressed, if it is enabled. */
function clickJoin() { var join = joinButton(); return enabled(join) && press(join); }
function focusInput(input) {
  if (!input) return false;
  input.focus();
  input.select();
  return true;
}
/*
 * Reports caption changes the moment they happen, through the binding the driver exposed, and
 * counts the changes inside the caption area (area()), read or not: a count that grows while the
 * reader finds no text is how the driver tells markup it cannot read from a silent meeting.
 */
function observeCaptions(read, area) {
  if (window.__ntObserver) return true;
  var last = '';
  function changed(records) {
    var el = area();
    if (el) for (var i = 0; i < records.length; i++) if (el.contains(records[i].target)) { window.__ntAreaChanges = (window.__ntAreaChanges || 0) + 1; break; }
    report();
  }
  function report() {
    var items = read();
    if (!items) return;
    var json = JSON.stringify(items);
    if (json === last) return;
    last = json;
    if (typeof window.__ntCaptions === 'function') window.__ntCaptions(JSON.stringify({ seq: nextSeq(), items: items }));
  }
  window.__ntObserver = new MutationObserver(changed);
  window.__ntObserver.observe(document.body, { subtree: true, childList: true, characterData: true,
    attributes: true, attributeFilter: ['style', 'hidden', 'aria-hidden'] });
  report();
  return true;
}
/*
 * The structure under \`root\` for an operator updating the selectors: tag names, depths, roles, aria
 * labels and data attributes. Never text, never class names (generated); people's names in labels
 * are removed by the driver, which knows them.
 */
function snapshotOf(root) {
  var nodes = [];
  (function walk(el, depth) {
    if (!el || nodes.length >= 400 || depth > 40) return;
    var attrs = {};
    for (var i = 0; i < el.attributes.length; i++) {
      var a = el.attributes[i];
      if (a.name === 'role' || a.name === 'type' || a.name.indexOf('aria-') === 0 || a.name.indexOf('data-') === 0) attrs[a.name] = a.value.slice(0, 80);
    }
    nodes.push({ depth: depth, tag: el.tagName.toLowerCase(), attrs: attrs, children: el.children.length });
    for (var c = 0; c < el.children.length; c++) walk(el.children[c], depth + 1);
  })(root, 0);
  return nodes;
}
/* The bar of controls a button sits in: its closest ancestor holding several buttons. */
function toolbarOf(button) {
  for (var el = button; el && el !== document.body; el = el.parentElement) if (el.querySelectorAll('button').length >= 4) return el;
  return document.body;
}
/* The text a control shows, without its icons (aria-hidden ligatures such as Meet's "settings"). */
function shownText(el) {
  var copy = el.cloneNode(true);
  all('[aria-hidden="true"]', copy).forEach(function (icon) { icon.remove(); });
  return norm(copy.textContent);
}
/* A control's name as a screen reader reads it: aria-label, else the elements aria-labelledby names, else its text. */
function accessibleName(el) {
  var label = el.getAttribute('aria-label');
  if (label) return norm(label);
  var ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
  if (ids.length) return norm(ids.map(function (id) { var by = document.getElementById(id); return by ? by.textContent : ''; }).join(' '));
  return shownText(el);
}
/*
 * What names a form field, as a person or a screen reader finds it: its aria-label, the elements
 * aria-labelledby names, a <label for> or a <label> around it, its placeholder, else the text shown
 * just before it (a label drawn beside the field, tied to it by nothing but its place). '' if none.
 */
function fieldLabel(input) {
  var named = accessibleName(input);
  if (named) return named;
  var labels = input.labels ? Array.prototype.slice.call(input.labels) : [];
  for (var i = 0; i < labels.length; i++) { var text = shownText(labels[i]); if (text) return text; }
  return norm(input.getAttribute('placeholder')) || textBefore(input);
}
/* The text of the nearest visible element before \`el\` (its own or an ancestor's earlier sibling), unless a control stands between. */
function textBefore(el) {
  var controls = 'input, button, select, textarea, [role="button"]';
  for (var node = el, depth = 0; node && node.parentElement && depth < 6; node = node.parentElement, depth++) {
    for (var prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
      if (prev.matches(controls) || prev.querySelector(controls)) return '';
      var text = visible(prev) ? shownText(prev) : '';
      if (text) return text;
    }
  }
  return '';
}
function named(selector, pattern, root) {
  return shown(selector, root).filter(function (el) { return pattern.test(accessibleName(el)); })[0] || null;
}
/*
 * The caption language picker once its dialog is open (see caption-language.ts): the combobox
 * named S.text.languageBox; with its list open, the languages offered and the one selected now,
 * else a click on it. Null when the dialog has no such combobox.
 */
function languageList(dialog) {
  var box = dialog && named(S.css.combobox, S.text.languageBox, dialog);
  if (!box) return null;
  var options = shown(S.css.languageOption);
  if (options.length) return { clicked: null, list: { current: shownText(box), options: options.map(shownText) } };
  return { clicked: press(box) ? 'the language list' : null };
}
function pickLanguage(label) {
  return press(shown(S.css.languageOption).filter(function (option) { return shownText(option) === label; })[0]);
}
/* The first control of \`path\` ([what, element] pairs, nearest the goal first) that is there, clicked. */
function clickAlong(path) {
  for (var i = 0; i < path.length; i++) if (path[i][1] && press(path[i][1])) return { clicked: path[i][0] };
  return { clicked: null };
}
`;
