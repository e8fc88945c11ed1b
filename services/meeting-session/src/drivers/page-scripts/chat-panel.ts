/**
 * What the driver runs in the page for the meeting's chat (issue #51), on every platform: the
 * panel opened through the platform's own chat button (found by its accessible name), the
 * messages read in the order the panel shows them, the compose box focused and the send button
 * pressed. The platform's part is data (chat/selectors.ts): which rows are messages, what keys a
 * row, where its sender and text are.
 *
 * A message's key is what stays the same when the panel draws it again: the platform's message id
 * where the row carries one (Meet's data-message-id, Zoom's row id), else its time, sender and
 * text (Teams' time[datetime]), else sender, text and its ordinal among equal rows. Rows grouped
 * under one sender's name carry that name on (a row without a sender has the one above it).
 * The page watches on its own (its message list observed, and a timer for a list drawn anew),
 * reporting only a change through the __ntChat binding: a message reaches the driver at once.
 */
import { jsLiteral } from './source.js';
import type { ChatSelectors } from '../chat/selectors.js';

/** The page binding chat readings arrive through: a JSON `{ seq, items }`. */
export const CHAT_BINDING = '__ntChat';

export type ChatAction = 'ensure' | 'open' | 'read' | 'focus' | 'send';

export interface ChatRow {
  key: string;
  sender: string;
  text: string;
}

/** `ensure`'s answer: whether the panel shows (its list or compose box), and whether the page watches it. */
export interface ChatPanelState {
  open: boolean;
  watching: boolean;
  /** The chat button is there to press. */
  button: boolean;
}

const CHAT_SCRIPT = String.raw`
function norm(v) { return String(v == null ? '' : v).replace(/[\u2018\u2019\u02bc]/g, "'").replace(/\s+/g, ' ').trim(); }
function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
function visible(el) {
  if (!el || !el.isConnected) return false;
  if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true });
  return el.getClientRects().length > 0;
}
function shown(sel, root) { return all(sel, root).filter(visible); }
function textOf(el, skip) {
  var copy = el.cloneNode(true);
  all('button, [role="button"], [aria-hidden="true"], time' + (skip ? ', ' + skip : ''), copy).forEach(function (n) { n.remove(); });
  return norm(copy.textContent);
}
function nameOf(el) {
  var label = el.getAttribute('aria-label');
  if (label) return norm(label);
  var ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
  if (ids.length) return norm(ids.map(function (id) { var by = document.getElementById(id); return by ? by.textContent : ''; }).join(' '));
  var copy = el.cloneNode(true);
  all('[aria-hidden="true"]', copy).forEach(function (n) { n.remove(); });
  return norm(copy.textContent) || norm(el.getAttribute('title'));
}
var CONTROLS = 'button, [role="button"]';
function control(pattern) {
  var found = shown(CONTROLS).filter(function (el) { return pattern.test(nameOf(el)); });
  return found[0] || null;
}
function iconControl(pattern) {
  if (!pattern) return null;
  var icons = shown('i, span, mat-icon').filter(function (i) { return !i.children.length && pattern.test(norm(i.textContent)); });
  for (var k = 0; k < icons.length; k++) { var b = icons[k].closest(CONTROLS); if (b) return b; }
  return null;
}
function composeBox() {
  var direct = shown(S.compose);
  if (direct.length) return direct[direct.length - 1];
  var fields = shown('textarea, [contenteditable="true"], input[type="text"]');
  for (var k = 0; k < fields.length; k++) {
    var f = fields[k];
    var label = norm(f.getAttribute('aria-label')) || norm(f.getAttribute('placeholder')) || norm(f.getAttribute('aria-placeholder'));
    if (S.composeName.test(label)) return f;
  }
  return null;
}
function rows() {
  return shown(S.rows).filter(function (r) {
    if (r.closest(CONTROLS) || r.matches(CONTROLS)) return false;
    if (S.skip && (r.matches(S.skip) || r.closest(S.skip))) return false;
    // The innermost message: a row holding another one is its group (a control inside, such as Meet's pin button, is none).
    return !all(S.rows, r).some(function (n) { return !n.closest(CONTROLS); });
  });
}
/* The name above a row that has none of its own: the nearest text around it that is no message. */
function senderAbove(row) {
  for (var el = row.parentElement, depth = 0; el && el !== document.body && depth < 8; el = el.parentElement, depth++) {
    var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var parent = node.parentElement;
      if (!parent || !norm(node.nodeValue)) continue;
      if (parent.closest(S.rows) || parent.closest(CONTROLS) || parent.closest('time, [aria-hidden="true"]')) continue;
      if (!visible(parent)) continue;
      return norm(node.nodeValue);
    }
  }
  return '';
}
function senderOf(row, item) {
  var label = norm(row.getAttribute('aria-label'));
  for (var k = 0; label && k < S.rowLabel.length; k++) {
    var m = S.rowLabel[k].exec(label);
    if (m) return norm(m[1]);
  }
  if (S.sender) {
    var el = (item || row).querySelector(S.sender);
    if (el) return norm(el.textContent);
    return null;
  }
  return S.senderAbove ? senderAbove(row) : null;
}
function read() {
  var items = [];
  var last = '';
  var counts = {};
  rows().forEach(function (row) {
    var item = S.item ? row.closest(S.item) : null;
    var sender = senderOf(row, item);
    if (sender) last = sender; else sender = last;
    var textEl = S.text ? row.querySelector(S.text) : null;
    var text = textEl ? norm(textEl.textContent) : textOf(row, S.sender);
    if (!text) return;
    var id = S.idAttribute ? row.getAttribute(S.idAttribute) : null;
    var time = S.time ? (item || row).querySelector(S.time) : null;
    var key;
    if (id) key = 'id:' + id;
    else {
      // With a time the sender stays out of the key: a list drawn from the middle of a run shows no name on its first row.
      var base = time ? time.getAttribute('datetime') + '|' + text : sender + '|' + text;
      counts[base] = (counts[base] || 0) + 1;
      key = 'at:' + base + '#' + counts[base];
    }
    items.push({ key: key, sender: sender, text: text });
  });
  return items;
}
function panelOpen() { return !!composeBox() || rows().length > 0 || (!!S.list && shown(S.list).length > 0); }
/*
 * What to watch: the builds' list where one is known, else the panel holding the compose box and
 * every message (the nearest element around them all), which stays while runs and rows come and go.
 */
function listOf() {
  var found = S.list ? shown(S.list) : [];
  if (found[0]) return found[0];
  var rs = rows();
  if (!rs.length) return null;
  var p = (composeBox() || rs[0]).parentElement;
  while (p && !rs.every(function (r) { return p.contains(r); })) p = p.parentElement;
  return p;
}
function panelButton() { return control(S.panelButton); }
function watch() {
  var w = window.__ntChatWatch;
  if (w) return true;
  if (typeof window[S.binding] !== 'function') return false;
  w = window.__ntChatWatch = { last: '', seq: 0, list: null, observer: null, queued: false };
  function report() {
    w.queued = false;
    try {
      var items = read();
      var json = JSON.stringify(items);
      if (json === w.last) return;
      w.last = json;
      window[S.binding](JSON.stringify({ seq: ++w.seq, items: items }));
    } catch (e) {}
  }
  /* The message list, watched for changes: a new message is read at once, not at the next tick. */
  function follow() {
    var list = w.list && w.list.isConnected && S.list ? w.list : listOf();
    if (list === w.list) return;
    if (w.observer) w.observer.disconnect();
    w.list = list;
    if (!list) return;
    w.observer = new MutationObserver(function () {
      if (w.queued) return;
      w.queued = true;
      setTimeout(report, 0);
    });
    w.observer.observe(w.list, { childList: true, subtree: true, characterData: true });
  }
  w.timer = setInterval(function () {
    follow();
    report();
  }, S.watchMs);
  return true;
}
function ensure() {
  var open = panelOpen();
  return { open: open, watching: open ? watch() : !!window.__ntChatWatch, button: !!panelButton() };
}
function openPanel() {
  var button = panelButton();
  if (!button) return false;
  button.click();
  return true;
}
function focusCompose() {
  var box = composeBox();
  if (!box) return panelOpen() ? 'none' : 'closed';
  box.focus();
  if ('value' in box && box.tagName !== 'DIV') {
    box.value = '';
    box.dispatchEvent(new Event('input', { bubbles: true }));
  } else {
    var range = document.createRange();
    range.selectNodeContents(box);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  return document.activeElement === box || box.contains(document.activeElement) ? 'focused' : 'none';
}
function pressSend() {
  var button = control(S.sendButton) || iconControl(S.sendIcon);
  if (!button || button.disabled || button.getAttribute('aria-disabled') === 'true') return false;
  button.click();
  return true;
}
function run(action) {
  switch (action) {
    case 'ensure': return ensure();
    case 'open': return openPanel();
    case 'read': return read();
    case 'focus': return focusCompose();
    case 'send': return pressSend();
  }
  throw new Error('unknown chat action ' + action);
}
`;

/** `(action) => source` for a platform's chat selectors: one expression, evaluated in the client's frame. */
export function chatProgram(selectors: ChatSelectors, watchMs = 250): (action: ChatAction) => string {
  const prefix = `(function (S, action) {\n'use strict';\n${CHAT_SCRIPT}\nreturn run(action);\n})(${jsLiteral({
    ...selectors,
    binding: CHAT_BINDING,
    watchMs,
  })}, `;
  return (action) => `${prefix}${JSON.stringify(action)})`;
}
