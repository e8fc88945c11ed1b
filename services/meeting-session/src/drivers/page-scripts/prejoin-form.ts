/**
 * The pre-join form, alike on every platform (JavaScript source; see source.ts): its join button,
 * and its name field found by what it is, on platforms whose builds have labelled it by
 * aria-label, by a <label>, by a placeholder only, or in the page's own language. A platform's
 * selectors give `S.text.joinButton` (and, where builds mark it, `S.css.joinButton`, a hint);
 * for the name field `S.css.textInput` (the form's fields), `S.css.nameHint` (the field as past
 * builds marked it, a hint), `S.text.nameField` (a label that says it takes a name) and, where a
 * form may ask a passcode too, `S.text.passcodeField`. Labels are read by fieldLabel (dom-helpers).
 */
export const PREJOIN_FORM_HELPERS = String.raw`
/* The join button: the one builds mark, else a button outside pop-ups worded as the platform's join (a pop-up's "Join now" is the pop-up's). */
function joinButton() {
  return (S.css.joinButton && outsideDialogs(shown(S.css.joinButton))[0]) || outsideDialogs(byText(S.css.buttons, S.text.joinButton))[0] || null;
}
/* A pre-join field that takes a passcode (Zoom): a password input, or one whose label says so. */
function isPasscodeField(input) {
  return input.type === 'password' || (!!S.text.passcodeField && S.text.passcodeField.test(fieldLabel(input)));
}
/*
 * The name field: among the text fields outside pop-ups (passcodes aside), the one past builds
 * marked (the hint), else one whose label (fieldLabel: aria, <label>, placeholder, the words
 * before it) says it takes a name, else, beside the join button \`join\`, the form's only text
 * field whatever its label says (a lobby in another language: Meet's Hungarian "A neved"), or
 * of several the one alone nearest the button.
 */
function nameField(join) {
  var fields = outsideDialogs(shown(S.css.textInput)).filter(function (field) { return !isPasscodeField(field); });
  var hinted = fields.filter(function (field) { return field.matches(S.css.nameHint); })[0];
  if (hinted) return hinted;
  var named = fields.filter(function (field) { return S.text.nameField.test(fieldLabel(field)); })[0];
  if (named) return named;
  if (!join) return null;
  return fields.length === 1 ? fields[0] : nearest(join, fields);
}
/* Of \`els\`, the one alone in the smallest part of the page that holds \`anchor\` and any of them. */
function nearest(anchor, els) {
  for (var box = anchor.parentElement; box; box = box.parentElement) {
    var inside = els.filter(function (el) { return box.contains(el); });
    if (inside.length) return inside.length === 1 ? inside[0] : null;
  }
  return null;
}
`;
