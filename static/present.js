// Projector mode's behaviour (linked only in projector mode): the timeline
// floats folded to its title; a click on the title opens it, and it stays
// open across the frames that redraw it.
(function () {
  'use strict';
  var tlOpen = false;
  function foldTimelines() {
    document.querySelectorAll('.timeline').forEach(function (t) {
      t.classList.toggle('tl-open', tlOpen);
      var b = t.querySelector('[data-tl-fold]');
      if (b) b.setAttribute('aria-expanded', String(tlOpen || t.classList.contains('timeline-past')));
    });
  }
  foldTimelines();
  document.addEventListener('click', function (e) {
    if (e.target.closest && e.target.closest('[data-tl-fold]')) { tlOpen = !tlOpen; foldTimelines(); }
  });
  document.addEventListener('htmx:wsAfterMessage', foldTimelines);
})();
