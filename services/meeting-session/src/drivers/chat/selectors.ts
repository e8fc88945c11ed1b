/**
 * What a platform's chat panel is made of, as the chat page script (page-scripts/chat-panel.ts)
 * reads it: each platform's file (google-meet/chat.ts, teams/chat.ts, zoom/chat.ts) fills it
 * from what the real builds draw (docs: FIELD-NOTES, "6. Chat" of each platform).
 */
export interface ChatSelectors {
  /** The toolbar's chat button, by its accessible name. */
  panelButton: RegExp;
  /** The compose box, by selectors the builds use... */
  compose: string;
  /** ...else any text field or editable whose label or placeholder says this. */
  composeName: RegExp;
  /** The send button, by its accessible name... */
  sendButton: RegExp;
  /** ...or by the icon it shows (Meet's "send" ligature); null: none. */
  sendIcon: RegExp | null;
  /** The message list as the builds draw it; null: none is known (the panel around the messages is watched). */
  list: string | null;
  /** One message (the innermost element matching; none inside a control). */
  rows: string;
  /** Elements matching `rows` that are no message (Meet's pin-button overlays). */
  skip: string | null;
  /** The row's item around it, where the sender and time are (Teams' chat-pane-item); null: the row. */
  item: string | null;
  /** The sender's element in the item or row; null: read from the row's label, or the text above (senderAbove). */
  sender: string | null;
  /** No sender element: the sender is the text nearest above the row that is no message (Meet's group header). */
  senderAbove: boolean;
  /** The text's element in the row; null: the row's text without its controls and sender. */
  text: string | null;
  /** The attribute that identifies a message, where the row carries one; null: none. */
  idAttribute: string | null;
  /** A time element with the message's datetime (part of the key); null: none. */
  time: string | null;
  /** The row's aria-label, its sender as group 1 ("Barbara W. said to Everyone at 10:42 AM: Hi"). */
  rowLabel: RegExp[];
  /** A sender that is the bot itself: "You", "Me". */
  self: RegExp;
}
