// The help dialog, loaded when it is first opened (static/app.js): the
// server wraps this in a function of the dialog's HTML in the page's
// language and the URL of its stylesheet (help-<lang>.js). It adds the
// dialog, and on 'help:open' shows it once its stylesheet has loaded.
//
// The help lists the keys of the demo in use (rows and keys marked
// data-help-for are shown only when the demo has what they press), and
// says what + and - press there (replicas, members, a new App) with those
// buttons' own labels.
'use strict';

var styled = new Promise(function (resolve) {
  var link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = helpCSS;
  link.onload = link.onerror = resolve;
  document.head.appendChild(link);
});
document.body.insertAdjacentHTML('beforeend', helpHTML);
var help = document.getElementById('help');

function labelOf(b) {
  var a = b.getAttribute('aria-label');
  if (a) return a;
  var text = '';
  b.childNodes.forEach(function (n) {
    if (n.nodeType === 3) text += n.textContent;
    else if (n.nodeType === 1 && n.getAttribute('aria-hidden') !== 'true') text += n.textContent;
  });
  return text.trim();
}

function openHelp(demo) {
  help.querySelectorAll('[data-help-for]').forEach(function (row) {
    var sel = row.getAttribute('data-help-for');
    row.hidden = demo ? !(demo.matches(sel) || demo.querySelector(sel)) : false;
    var dd = row.querySelector('dd');
    if (!row.hasAttribute('data-help-label') || !dd) return;
    if (!dd.hasAttribute('data-generic')) dd.setAttribute('data-generic', dd.textContent);
    var labels = row.getAttribute('data-help-label').split('|').map(function (sel) {
      var b = demo && demo.querySelector(sel);
      return b ? labelOf(b) : '';
    }).filter(Boolean);
    dd.textContent = labels.length ? labels.join(' / ') : dd.getAttribute('data-generic');
  });
  if (!help.open) help.showModal();
}

document.addEventListener('help:open', function (e) {
  styled.then(function () { openHelp(e.detail); });
});
