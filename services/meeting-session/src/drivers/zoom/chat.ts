/**
 * Zoom's web client chat (FIELD-NOTES, Zoom "6. Chat"): the footer button "open the chat panel"
 * (its name says "close" while open), a TipTap editor (.tiptap.ProseMirror, contenteditable), the
 * "send" button. Messages: rows [id^="chat-message-"] in the "Chat Message List", the sender in
 * .chat-item__sender on the first of a run only, the text in .chat-rtf-box__display; a row's
 * aria-label names its sender in either of two wordings.
 */
import type { ChatSelectors } from '../chat/selectors.js';

export const zoomChat: ChatSelectors = {
  panelButton: /open the chat panel|^chat$/i,
  compose: '.chat-rtf-box__editor-outer [contenteditable="true"], .tiptap.ProseMirror[contenteditable="true"]',
  composeName: /^(type message|message)/i,
  sendButton: /^send$/i,
  sendIcon: null,
  list: '[aria-label="Chat Message List"], .chat-virtuoso-wrapper',
  rows: '[id^="chat-message-"]',
  skip: null,
  item: null,
  sender: '.chat-item__sender',
  senderAbove: false,
  text: '.chat-rtf-box__display',
  idAttribute: 'id',
  time: null,
  rowLabel: [/^(.+?) said to .+? at \d/i, /^(.+?) to [^,]+, \d{1,2}:\d{2}/i],
  self: /^(me|you)$/i,
};
