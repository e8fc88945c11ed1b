/**
 * Google Meet's chat panel (FIELD-NOTES, Meet "6. Chat"): the "Chat with everyone" button (or one
 * named "Chat..."), a textarea "Send a message" (aria-label or placeholder, "...to everyone"), a
 * send button showing the "send" icon (or Enter). Messages are grouped under a header with the
 * sender's name; each message carries data-message-id (so do pin-button overlays, which are
 * buttons: left out). Class names are obfuscated and change per build: none is read.
 */
import type { ChatSelectors } from '../chat/selectors.js';

export const meetChat: ChatSelectors = {
  panelButton: /^chat( with everyone)?\b/i,
  compose:
    'textarea[aria-label="Send a message"], textarea[placeholder="Send a message"], textarea[aria-label="Send a message to everyone"]',
  composeName: /^send a message/i,
  sendButton: /^send( a)? message$|^send$/i,
  sendIcon: /^send$/,
  list: 'aside[aria-label="Side panel"] [aria-live]',
  rows: '[data-message-id]',
  skip: null,
  item: null,
  sender: null,
  senderAbove: true,
  text: null,
  idAttribute: 'data-message-id',
  time: null,
  rowLabel: [],
  self: /^you$/i,
};
