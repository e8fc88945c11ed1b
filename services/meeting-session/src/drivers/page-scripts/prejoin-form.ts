/**
 * The pre-join form, alike on every platform (JavaScript source; see source.ts): its join button,
 * and its name field found by what it is, on platforms whose builds have labelled it by
 * aria-label, by a <label>, by a placeholder only, or in the page's own language. A platform's
 * selectors give `S.text.joinButton` (and, where builds mark it, `S.css.joinButton`, a hint);
 * for the name field `S.css.textInput` (the text fields), `S.css.nameHint` (the field as past
 * builds marked it, a hint) and `S.text.nameField` (a field's name that says it takes a name).
 */
export const PREJOIN_FORM_HELPERS = String.raw`
/* The join button: the one builds mark, else a button outside pop-ups worded as the platform's join (a pop-up's "Join now" is the pop-up's). */
function joinButton() {
  return (S.css.joinButton && first(S.css.joinButton)) || outsideDialogs(byText(S.css.buttons, S.text.joinButton))[0] || null;
}
/* What a form field is called: its aria-label, the elements aria-labelledby names, its <label>s, else its placeholder. */
function fieldName(input) {
  var name = input.getAttribute('aria-label') || '';
  if (!name && input.getAttribute('aria-labelledby')) name = accessibleName(input);
  if (!name && input.labels) name = Array.prototype.map.call(input.labels, function (label) { return label.textContent; }).join(' ');
  return norm(name || input.getAttribute('placeholder') || input.getAttribute('title'));
}
/*
 * The name field: among the text fields outside pop-ups, the one past builds marked (the hint),
 * else one whose name says it takes a name, else, beside the join button \`join\`, the form's only
 * text field whatever its label says (a lobby in another language: Meet's Hungarian "A neved").
 */
function nameField(join) {
  var fields = outsideDialogs(shown(S.css.textInput));
  var hinted = fields.filter(function (field) { return field.matches(S.css.nameHint); })[0];
  if (hinted) return hinted;
  var named = fields.filter(function (field) { return S.text.nameField.test(fieldName(field)); })[0];
  if (named) return named;
  return join && fields.length === 1 ? fields[0] : null;
}
`;
