/**
 * Microsoft Teams' chat panel (FIELD-NOTES, Teams "6. Chat"): button#chat-button (named "Chat"
 * or "Show conversation"), a compose box "Type a message" (aria-label or placeholder; a
 * contenteditable or "Type a new message" textarea in other builds), Enter or "Send". Messages:
 * [data-tid="chat-pane-item"] holding [data-tid="chat-pane-message"], the author in
 * [data-tid="message-author-name"] only on the first of a run, time[datetime].
 */
import type { ChatSelectors } from '../chat/selectors.js';

export const teamsChat: ChatSelectors = {
  panelButton: /^(chat|show conversation|open chat)\b/i,
  compose:
    '[aria-label="Type a message"], [placeholder="Type a message"], textarea[aria-label*="Type a new message"], [contenteditable="true"][aria-label*="message"]',
  composeName: /type a (new )?message/i,
  sendButton: /^send( message)?\b/i,
  sendIcon: null,
  // No build's list is on record: the panel around the compose box and the messages is watched.
  list: null,
  rows: '[data-tid="chat-pane-message"]',
  skip: null,
  item: '[data-tid="chat-pane-item"]',
  sender: '[data-tid="message-author-name"], .ui-chat__messageheader__author',
  senderAbove: false,
  text: null,
  idAttribute: null,
  time: 'time[datetime]',
  rowLabel: [],
  self: /^you$/i,
};
