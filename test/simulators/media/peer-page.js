/*
 * What both ends of the simulated call's media share: loaded first into the media server's page
 * (server.ts, for audio-page.js and video-page.js) and into every simulated client (pages/html.ts,
 * for call-audio.js and call-video.js). This machine's mDNS host names given as the loopback
 * address (both ends are here, and nothing resolves <uuid>.local), and a wait for an offer's ICE
 * gathering to finish, so that one message carries all of it (at most 2 s).
 */
window.__mediaPeer = (function () {
  'use strict';
  function loopback(sdp) {
    return sdp.replace(/ [0-9a-f-]+\.local /gi, ' 127.0.0.1 ');
  }
  function gathered(pc) {
    if (pc.iceGatheringState === 'complete') return Promise.resolve();
    return new Promise(function (resolve) {
      var timer = setTimeout(resolve, 2000);
      pc.addEventListener('icegatheringstatechange', function () {
        if (pc.iceGatheringState === 'complete') {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  }
  return { loopback: loopback, gathered: gathered };
})();
