// Projector mode's behaviour (linked only in projector mode): the timeline
// floats folded to a button of its title (present.css); a click on it opens
// the timeline, and it stays open across the frames that redraw it.
(function () {
  'use strict';
  var tlOpen = false;
  function foldTimelines() {
    document.querySelectorAll('.timeline').forEach(function (t) {
      var b = t.querySelector('[data-tl-fold]');
      if (!b) {
        b = document.createElement('button');
        b.type = 'button';
        b.className = 'btn btn-small tl-fold';
        b.setAttribute('data-tl-fold', '');
        b.textContent = t.querySelector('h3').textContent;
        t.querySelector('h3').after(b);
      }
      t.classList.toggle('tl-open', tlOpen);
      b.setAttribute('aria-expanded', String(tlOpen || t.classList.contains('timeline-past')));
    });
  }
  foldTimelines();
  document.addEventListener('click', function (e) {
    if (e.target.closest && e.target.closest('[data-tl-fold]')) { tlOpen = !tlOpen; foldTimelines(); }
  });
  document.addEventListener('htmx:wsAfterMessage', foldTimelines);
})();
