/**
 * Join screens told by what they are (join-screen-selectors.ts), shared by every platform's page
 * script (JavaScript source; see source.ts). `S.screens` holds the shared selectors.
 */
export const JOIN_SCREEN_HELPERS = String.raw`
/*
 * A screen the platform's own rules left 'unknown' (no name field, no join button, no known text):
 * a sign-in control means guests are refused; else its words by meaning; else it stays unknown,
 * and its main heading goes with the reading so that the driver can name it.
 */
function screenByMeaning(state) {
  // A page whose controls hide until the pointer moves is judged once they show (pointer.ts).
  if (state.screen !== 'unknown' || state.dialog || state.controlsHidden) return state;
  var text = bodyText();
  var signIn = outsideDialogs(shown(S.screens.css.controls).filter(function (el) { return S.screens.text.signIn.test(accessibleName(el)); }))[0];
  var meaning = null;
  if (text.length <= S.screens.maxTextLength) {
    for (var i = 0; i < S.screens.meanings.length && !meaning; i++) if (S.screens.meanings[i][1].test(text)) meaning = S.screens.meanings[i][0];
  }
  if (meaning || signIn) {
    state.screen = 'terminal';
    state.outcome = meaning || 'guest_refused';
    return state;
  }
  if (text.length <= S.screens.maxTextLength && S.screens.text.lobby.test(text)) { state.screen = 'lobby'; return state; }
  var heading = first(S.screens.css.headings);
  state.heading = clean(heading ? heading.textContent : text).slice(0, 80) || null;
  return state;
}
`;
