// The embed routes' one behaviour: inside an iframe, tell the parent our
// height whenever it changes (linked by /embed/<kind> pages only).
(function () {
  'use strict';
  if (window.parent === window || !window.ResizeObserver) return;
  var lastHeight = 0;
  new ResizeObserver(function () {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h !== lastHeight) {
      lastHeight = h;
      window.parent.postMessage({ type: 'reconcile-demo:resize', height: h }, '*');
    }
  }).observe(document.documentElement);
})();
