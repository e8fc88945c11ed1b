/**
 * The caption language's dialog, alike on every platform (JavaScript source; see source.ts and
 * caption-language.ts): one step per call towards the dialog named `S.text.languageDialog` and
 * the language list in it (languageList, dom-helpers.ts), then closed with `S.text.applyLanguage`
 * or `S.text.cancelLanguage`.
 */
export const LANGUAGE_DIALOG_HELPERS = String.raw`
function languageDialog() { return named(S.css.dialogs, S.text.languageDialog); }
/*
 * With the dialog open: its language list, else what \`withoutList(dialog)\` does there (a tab to
 * open, a dialog to close). Else the first control of \`path()\` that is there ([what, element]
 * pairs, nearest the dialog first), clicked.
 */
function openLanguageDialog(path, withoutList) {
  var dialog = languageDialog();
  if (dialog) return languageList(dialog) || withoutList(dialog);
  return clickAlong(path());
}
/* The dialog closed, applying the pick (true) or not; with no dialog, whatever menu is open is closed by a click elsewhere. */
function finishLanguage(apply) {
  var dialog = languageDialog();
  return press(dialog && named(S.css.buttons, apply ? S.text.applyLanguage : S.text.cancelLanguage, dialog)) || press(document.body);
}
`;
