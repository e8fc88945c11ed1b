/**
 * The in-page half of BOT_VIDEO_SAVINGS (settings.ts), installed before the platform's own
 * scripts (evaluateOnNewDocument, in every frame): `hide` styles remote <video> elements away,
 * `inactive` turns every video transceiver the page receives on inactive before each answer or
 * offer, so that what the page negotiates asks for no video. Both touch only what every platform
 * has: <video> elements and RTCPeerConnection. Kept as source text (see page-scripts/source.ts).
 */
import type { VideoSaving } from './settings.js';

const INSTALL = String.raw`function (steps) {
  if (steps.hide) {
    // visibility keeps the layout (tiles, names, speaking outlines) exactly where it was.
    var style = document.createElement('style');
    style.textContent = 'video { visibility: hidden !important; }';
    var add = function () { (document.head || document.documentElement).appendChild(style); };
    if (document.documentElement) add();
    else document.addEventListener('DOMContentLoaded', add, { once: true });
  }
  var Peer = window.RTCPeerConnection;
  if (!steps.inactive || !Peer) return;
  var proto = Peer.prototype;
  function quiet(pc) {
    try {
      pc.getTransceivers().forEach(function (t) {
        if (!t.receiver || !t.receiver.track || t.receiver.track.kind !== 'video') return;
        if (t.currentDirection === 'stopped') return;
        // The bot's own camera (always off) may still send; nothing is received.
        if (t.direction === 'sendrecv') t.direction = 'sendonly';
        else if (t.direction === 'recvonly') t.direction = 'inactive';
      });
    } catch (e) {
      // A closed connection: nothing to receive anyway.
    }
  }
  var setRemote = proto.setRemoteDescription;
  proto.setRemoteDescription = function () {
    var pc = this;
    var done = setRemote.apply(this, arguments);
    return done && typeof done.then === 'function'
      ? done.then(function (value) { quiet(pc); return value; })
      : done;
  };
  var createAnswer = proto.createAnswer;
  proto.createAnswer = function () { quiet(this); return createAnswer.apply(this, arguments); };
  var createOffer = proto.createOffer;
  proto.createOffer = function () { quiet(this); return createOffer.apply(this, arguments); };
}`;

/** The script for the steps asked for; null when neither in-page step is. */
export function videoPageScript(savings: readonly VideoSaving[]): string | null {
  const steps = { hide: savings.includes('hide'), inactive: savings.includes('inactive') };
  if (!steps.hide && !steps.inactive) return null;
  return `(${INSTALL})(${JSON.stringify(steps)})`;
}
