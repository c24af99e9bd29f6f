// Projector mode's behaviour (linked only in projector mode): the timeline
// folds away to a button of its title (present.css); a click on it opens
// the timeline, and it stays open across the frames that redraw it. On a
// page of one demo the button sits in the site's head, with the page's
// other tools, where it covers nothing; elsewhere (an embed, the index) it
// floats at the bottom left.
(function () {
  'use strict';
  var tlOpen = false;
  function foldTimelines() {
    var tls = document.querySelectorAll('.timeline');
    var tools = tls.length === 1 ? document.querySelector('.site-tools') : null;
    tls.forEach(function (t) {
      var home = tools || t;
      var b = home.querySelector('[data-tl-fold]');
      if (!b) {
        b = document.createElement('button');
        b.type = 'button';
        b.className = tools ? 'tool tl-fold' : 'btn btn-small tl-fold';
        b.setAttribute('data-tl-fold', '');
        b.setAttribute('data-testid', 'timeline-fold');
        b.textContent = t.querySelector('h3').textContent;
        if (tools) tools.prepend(b); else t.querySelector('h3').after(b);
      }
      b.setAttribute('aria-controls', t.id);
      t.classList.toggle('tl-open', tlOpen);
      t.classList.toggle('tl-headed', !!tools);
      b.setAttribute('aria-expanded', String(tlOpen || t.classList.contains('timeline-past')));
    });
  }
  foldTimelines();
  document.addEventListener('click', function (e) {
    if (e.target.closest && e.target.closest('[data-tl-fold]')) { tlOpen = !tlOpen; foldTimelines(); }
  });
  document.addEventListener('htmx:wsAfterMessage', foldTimelines);
})();
