/*
 * The call's chrome as some builds draw it, for the simulated clients (inlined after common.js and
 * call-audio.js, see html.ts): a toolbar that hides until the pointer moves, and Meet's
 * "Backgrounds and effects" panel, which carries a participant id as a person's tile does.
 */
(function (L) {
  'use strict';
  var h = L.h;

  /*
   * A toolbar hidden from the start of the call until the pointer moves, and again IDLE_MS after
   * it last moved, unless `busy()` (a menu or dialog of the toolbar's open): the field notes' Meet
   * toolbar that auto-hides (VX moves the mouse for it). Hidden is `hiddenClass` on the bar
   * (visibility: hidden), so its controls are not there to see or click, as for a person.
   */
  var IDLE_MS = 3000;
  var woken = null;
  L.autoHidingBar = function (bar, hiddenClass, busy) {
    var timer = null;
    function hide() {
      if (busy()) {
        timer = setTimeout(hide, IDLE_MS);
        return;
      }
      bar.classList.add(hiddenClass);
    }
    function wake() {
      bar.classList.remove(hiddenClass);
      clearTimeout(timer);
      timer = setTimeout(hide, IDLE_MS);
    }
    // One call screen at a time: a new one's bar takes over the pointer.
    if (woken) document.removeEventListener('mousemove', woken);
    woken = wake;
    bar.classList.add(hiddenClass);
    document.addEventListener('mousemove', wake);
  };

  /*
   * Meet's self-view "Backgrounds and effects" panel, drawn (SIM.effectsTile) in the pre-join, the
   * lobby and the call with a data-participant-id like a person's tile (VX: present in both the
   * lobby and the call), its label leading with the visual_effects icon: on the element itself
   * ('labelled': aria-label "Backgrounds and effects") or only in its text ('text'). It is nobody;
   * null where the page load draws none.
   */
  L.effectsTile = function (SIM, classes, icon) {
    if (SIM.effectsTile !== 'labelled' && SIM.effectsTile !== 'text') return null;
    var id = 'spaces/' + SIM.space + '/devices/effects' + SIM.seed;
    return h(
      'div',
      {
        class: classes,
        'data-participant-id': id,
        'aria-label': SIM.effectsTile === 'labelled' ? 'Backgrounds and effects' : null,
      },
      [
        h('button', { type: 'button', 'aria-label': 'Apply visual effects' }, [icon('visual_effects')]),
        h('span', {}, 'Backgrounds and effects'),
      ],
    );
  };
})(window.__SIMLIB__);
