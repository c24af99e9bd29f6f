// Rooms. A room's page (/room/<code> links it): a follower watches the
// teacher's demo. Its controls are disabled (the server refuses them
// anyway), it looks at the room's past on its own, and "try it yourself"
// carries the room's last state to a demo of the follower's own. A demo's
// page loads it when its owner first opens a room (static/app.js): the
// panel folds its QR code away.
(function () {
  'use strict';

  function demoOf(el) { return el && el.closest ? el.closest('[data-demo]') : null; }
  function follower(d) { return d && d.getAttribute('data-role') === 'follower'; }
  function followerControls(root) {
    (root || document).querySelectorAll('[data-role="follower"] [ws-send]').forEach(function (b) {
      if (b.hasAttribute('data-timeline')) return; // a follower looks at the past on its own
      b.disabled = true;
      b.setAttribute('aria-disabled', 'true');
    });
  }
  followerControls();
  document.addEventListener('htmx:wsAfterMessage', function (e) {
    var d = demoOf(e.target); if (follower(d)) followerControls(d);
  });
  // A follower's look at the past sends the room's timeline (which its
  // page holds) with the moment it wants; "continue from here" is a fork:
  // a demo of its own, opened at that moment.
  document.addEventListener('htmx:wsConfigSend', function (e) {
    var d = demoOf(e.target);
    if (!follower(d) || e.detail.parameters.action !== 'timeline') return;
    var panel = d.querySelector('[data-testid="timeline-panel"]');
    if (panel && panel.getAttribute('data-moment')) e.detail.parameters.moment = panel.getAttribute('data-moment');
  });
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('[data-fork-moment]');
    if (!b || b.disabled) return;
    var d = demoOf(b), panel = d && d.querySelector('[data-testid="timeline-panel"]');
    var tl = d && d.querySelector('[data-testid="timeline"]');
    if (!panel || !tl) return;
    var q = 'moment=' + encodeURIComponent(panel.getAttribute('data-moment')) + '&at=' + encodeURIComponent(tl.value);
    if (document.documentElement.lang === 'en') q += '&lang=en';
    location.href = '/' + panel.getAttribute('data-kind') + '?' + q;
  });
  // The owner's room panel folds its QR code away (on the projector it
  // floats over the demo) and stays folded across the frames that redraw
  // it.
  var folded = false;
  function fold() {
    document.querySelectorAll('.room-panel[data-open="true"]').forEach(function (p) {
      p.classList.toggle('folded', folded);
      var b = p.querySelector('[data-room-fold]');
      if (b) b.setAttribute('aria-expanded', !folded);
    });
  }
  fold();
  document.addEventListener('htmx:wsAfterMessage', fold);
  document.addEventListener('click', function (e) {
    if (e.target.closest && e.target.closest('[data-room-fold]')) { folded = !folded; fold(); }
  });
  // The fork carries the room's last state as the demo's page carries its
  // own to another page of the site (static/app.js restores it).
  document.addEventListener('click', function (e) {
    if (!e.target.closest || !e.target.closest('[data-fork]')) return;
    var d = document.querySelector('[data-demo]');
    var el = d && d.querySelector('[data-snapshot]');
    if (!el || !el.getAttribute('data-snapshot')) return;
    try { sessionStorage.setItem('carry:' + d.getAttribute('data-demo'), el.getAttribute('data-snapshot')); } catch (err) { /* storage off */ }
  });
})();
