// The page's own behaviour, beside htmx and its WebSocket extension:
// connection state, the snapshot kept for restarts, focus kept across
// swaps, the timeline, keyboard shortcuts, the help dialog and the clock.
// What only some pages do has a script of its own, linked only there:
// chart.js (the demos with a chart), present.js (projector mode), embed.js
// (the embed routes) and room.js (a room's page, and a room's owner once
// the room opens).
(function () {
  'use strict';

  // htmx's settings, here rather than in a <meta> of every page: htmx
  // reads them once the page is parsed (DOMContentLoaded), after this
  // script. No indicator styles injected, no eval, no script run from a
  // swap.
  Object.assign(htmx.config, { includeIndicatorStyles: false, allowEval: false, allowScriptTags: false });

  var demos = function () { return Array.from(document.querySelectorAll('[data-demo]')); };
  var active = null; // the demo shortcuts act on: the last one touched

  function demoOf(el) { return el && el.closest ? el.closest('[data-demo]') : null; }

  // Connection indicator: data-state is connecting|open|closed.
  function setConn(demo, state) {
    var c = demo.querySelector('[data-testid="connection"]');
    if (!c) return;
    c.dataset.state = state;
    var text = c.querySelector('.conn-text');
    if (text) text.textContent = text.getAttribute('data-text-' + state) || state;
  }

  // Snapshots: the server sends one with every frame; the page keeps the
  // newest per session and sends it back when its socket opens again, so a
  // restarted or different server process rebuilds the demo.
  function snapKey(demo) { return 'snap:' + demo.dataset.sid; }
  function carryKey(demo) { return 'carry:' + demo.dataset.demo; }
  // The timeline (the log of actions) is kept beside the snapshot, so the
  // timeline survives a restart too.
  function tlKey(key) { return 'tl:' + key; }
  function store(key, value) { try { sessionStorage.setItem(key, value); } catch (e) { /* storage off: no restore */ } }
  function load(key) { try { return sessionStorage.getItem(key); } catch (e) { return null; } }
  function drop(key) { try { sessionStorage.removeItem(key); } catch (e) { /* ignore */ } }

  function owned(demo) { return demo.dataset.role !== 'follower'; }

  // The page names its demos' sessions in its tail, <p id="sids"> (the rest
  // of it is the same for every visitor: server/pagecache.go). Each demo of
  // its own takes its id, in order, before htmx connects its socket (this
  // script runs once the page is parsed, before DOMContentLoaded).
  var sids = document.getElementById('sids');
  if (sids) {
    var ids = sids.textContent.split(' ');
    demos().filter(owned).forEach(function (d, i) {
      d.dataset.sid = ids[i];
      d.setAttribute('ws-connect', d.getAttribute('ws-connect') + ids[i]);
    });
    sids.remove();
  }
  function keepSnapshot(demo) {
    if (!owned(demo)) return; // a room's follower has no session of its own to restore
    var el = demo.querySelector('[data-snapshot]');
    if (el && el.dataset.snapshot) {
      store(snapKey(demo), el.dataset.snapshot);
      var tl = el.dataset.timeline;
      if (tl) store(tlKey(snapKey(demo)), tl); else drop(tlKey(snapKey(demo)));
    }
    keepRoom(demo);
  }

  // The room a teacher opened is kept beside the snapshot: its code and
  // the owner secret only this page holds (the panel's data-secret, never
  // in a follower's page or a URL). When the socket opens again, on this
  // process restarted or on another replica, the page claims the room back
  // with them, and the class keeps following. A refused claim (the room
  // ended meanwhile) or closing the room forgets it.
  function roomKey(demo) { return 'room:' + demo.dataset.sid; }
  function carryRoomKey(demo) { return 'carryroom:' + demo.dataset.demo; }
  function keepRoom(demo) {
    var p = demo.querySelector('.room-panel');
    if (!p) return;
    if (p.dataset.open === 'true' && p.dataset.secret) {
      store(roomKey(demo), JSON.stringify({ code: p.dataset.code, secret: p.dataset.secret }));
    } else if (p.dataset.claim === 'refused') {
      drop(roomKey(demo));
    }
  }

  document.addEventListener('htmx:wsConnecting', function (e) {
    var d = demoOf(e.target); if (d) setConn(d, 'connecting');
  });
  // The connection says open once the socket's first frame is in: the
  // page then shows the server's demo, and a click acts on what it shows.
  document.addEventListener('htmx:wsOpen', function (e) {
    var d = demoOf(e.target); if (!d) return;
    d.dataset.synced = 'false';
    if (!owned(d)) return;
    var key = snapKey(d);
    var snap = load(key);
    var carried = false;
    if (!snap) { key = carryKey(d); snap = load(key); carried = !!snap; }
    if (snap) {
      try {
        var msg = { action: 'restore', snapshot: JSON.parse(snap) };
        var tl = load(tlKey(key));
        if (tl) msg.moment = tl;
        e.detail.socketWrapper.send(JSON.stringify(msg));
      } catch (err) { /* a bad stored value: start afresh */ }
      if (carried) { drop(carryKey(d)); drop(tlKey(carryKey(d))); }
    } else if (d.dataset.moment) {
      // A page opened from a link to a moment: its session starts there.
      e.detail.socketWrapper.send(JSON.stringify({ action: 'moment', moment: d.dataset.moment,
        at: d.dataset.momentAt }));
    }
    var room = load(roomKey(d));
    if (!room) {
      room = load(carryRoomKey(d));
      if (room) { store(roomKey(d), room); drop(carryRoomKey(d)); }
    }
    if (room) {
      try {
        var r = JSON.parse(room);
        e.detail.socketWrapper.send(JSON.stringify({ action: 'room-claim', code: r.code, secret: r.secret }));
      } catch (err) { drop(roomKey(d)); }
    }
  });
  // 1013 is the server saying it is full (too many sessions, or a room at
  // its followers' limit): the extension retries with a growing delay, and
  // the page says why it waits.
  document.addEventListener('htmx:wsClose', function (e) {
    var d = demoOf(e.target);
    if (d) setConn(d, e.detail.event.code === 1013 ? 'full' : 'closed');
  });

  // A frame is swapped here rather than by htmx's out-of-band swap: each
  // fragment replaces the element of its id, then htmx:wsAfterMessage fires
  // as the extension would fire it. htmx's swap clones every fragment, fires two
  // cleanup events for every element it removes and settles the attributes
  // of every element with an id: most of a click's time in the page
  // (make bench-page). The control that had the focus has it again.
  document.addEventListener('htmx:wsBeforeMessage', function (e) {
    var root = e.target;
    if (!root.hasAttribute || !root.hasAttribute('ws-connect') || typeof e.detail.message !== 'string') return;
    e.preventDefault();
    var focus = document.activeElement;
    focus = focus && focus !== document.body && focus.id;
    var tpl = document.createElement('template');
    tpl.innerHTML = e.detail.message;
    Array.from(tpl.content.children).forEach(function (frag) {
      var old = frag.id && document.getElementById(frag.id);
      if (!old) return;
      var oob = frag.getAttribute('hx-swap-oob'), top = oob == 'afterbegin';
      if (oob) {
        // A list the frame adds to (beforeend: the timeline's marks, a
        // log's lines; afterbegin: a log listed newest first), the
        // fragment's own <ol> or the one inside it, and the number of its
        // oldest items that leave, from the other end; the list says its
        // new length (data-value).
        var list = old.querySelector('ol') || old;
        for (var n = frag.dataset.drop; n-- > 0;) list[top ? 'lastElementChild' : 'firstElementChild'].remove();
        list[top ? 'prepend' : 'append'].apply(list, frag.children);
        list.dataset.value = list.children.length;
        return;
      }
      // What the fragment holds that is a fragment of its own stays.
      frag.querySelectorAll('[hx-preserve]').forEach(function (p) {
        var o = document.getElementById(p.id); if (o) p.replaceWith(o);
      });
      old.replaceWith(frag);
      var a = frag.querySelector('.tl-share'); if (a) fillShare(a);
    });
    if (focus && (!document.activeElement || document.activeElement === document.body)) {
      focus = document.getElementById(focus);
      if (focus && !focus.disabled) focus.focus({ preventScroll: true });
    }
    htmx.trigger(root, 'htmx:wsAfterMessage', e.detail); // its message and socketWrapper
  });

  // A ws-send control's message is sent here, in the capture phase: its
  // hx-vals and an input's own value (the server needs no HEADERS), through
  // htmx:wsConfigSend and the socket wrapper as htmx-ext-ws sends it
  // (wsBeforeSend, wsAfterSend; queued while the socket is down). The
  // extension took about half a millisecond of each click before the send
  // (make bench-page), and as long again to take on each swapped-in
  // control. The page sends once the socket's first frame is in (d.ws): it
  // replaced every control htmx took on at the page's load, whose
  // listeners send before it (server: TestFirstFrameReplacesEveryControl).
  function wsSend(e) {
    // (A click's or a change's target is an element: it has closest.)
    var el = e.target.closest('[ws-send], [data-send]'), d = demoOf(el), w = d && d.ws;
    if (!w || (el.matches('input') ? 'change' : 'click') !== e.type) return;
    var p = JSON.parse(el.getAttribute('hx-vals') || '{}');
    if (el.name) p[el.name] = el.value;
    var c = { parameters: p }; // what room.js's listener reads
    if (!htmx.trigger(el, 'htmx:wsConfigSend', c)) return;
    w.send(JSON.stringify(c.parameters), el);
    if (p.action === 'room-close') drop(roomKey(d)); // the room this page opened is over
  }
  document.addEventListener('click', wsSend, true);
  document.addEventListener('change', wsSend, true);

  var snapTimer = {};
  // Idle, but never later than 500 ms: a page that is never idle (a busy
  // machine, a demo drawing every animation frame) still keeps its snapshot.
  var idle = window.requestIdleCallback ? function (f) { return window.requestIdleCallback(f, { timeout: 500 }); }
    : function (f) { return setTimeout(f, 50); };
  document.addEventListener('htmx:wsAfterMessage', function (e) {
    var d = demoOf(e.target); if (!d) return;
    if (d.dataset.synced === 'false') { d.removeAttribute('data-synced'); setConn(d, 'open'); }
    d.ws = e.detail.socketWrapper;
    if (!snapTimer[d.id]) snapTimer[d.id] = idle(function () { snapTimer[d.id] = null; keepSnapshot(d); });
    // The demo's log follows its end unless the reader scrolled it away: at
    // the next animation frame, a log scrolled (or never moved) to where
    // the page last put its end is put at its end again. Nothing is read
    // while the reader scrolls, and no frame's handler forces a layout of
    // its own (the snapshot is stored when the page is idle).
    requestAnimationFrame(function () {
      var log = d.querySelector('.log-lines');
      if (log && log.scrollTop + log.clientHeight >= (log.end || 0) - 8) log.scrollTop = log.end = log.scrollHeight;
    });
  });
  // Store the newest snapshots before the page goes away or is hidden.
  function keepAll() { demos().forEach(keepSnapshot); }
  window.addEventListener('pagehide', keepAll);
  document.addEventListener('visibilitychange', keepAll);

  // Moving to another page of the site (language, mode, the other demo)
  // carries the demos along.
  document.addEventListener('click', function (e) {
    var a = e.target.closest('.site-head a');
    if (!a) return;
    keepAll();
    demos().forEach(function (d) {
      var s = load(snapKey(d)); if (s) store(carryKey(d), s);
      var tl = load(tlKey(snapKey(d))); if (tl) store(tlKey(carryKey(d)), tl); else drop(tlKey(carryKey(d)));
      var r = load(roomKey(d)); if (r) store(carryRoomKey(d), r);
    });
  });

  // A room's stylesheet and what its panel does (static/room.js) are
  // loaded when the owner first opens a room: most pages never open one.
  // The body names both (data-room: the sheet, then the script).
  document.addEventListener('htmx:wsAfterMessage', function () {
    var r = document.body.dataset.room;
    if (!r || !document.querySelector('.room-panel[data-open="true"]')) return;
    r = r.split(' ');
    var link = document.createElement('link'), js = document.createElement('script');
    link.rel = 'stylesheet';
    link.href = r[0];
    js.src = r[1];
    document.head.append(link, js);
    document.body.removeAttribute('data-room');
  });

  // The timeline. While it shows the present, the page runs its end on to
  // the clock (as it runs the clock) and keeps the link to the moment at
  // the present; while it shows the past, every control that would change
  // the demo is off (the server refuses them anyway) but the timeline's.
  function timelineOf(demo) { return demo.querySelector('[data-testid="timeline"]'); }
  function pastMode(demo) {
    var tl = timelineOf(demo);
    var past = !!tl && tl.dataset.mode === 'past';
    // A range of the present comes (with the page, or in a frame) ending
    // where it starts: it ends at the clock before anything is drawn.
    if (tl && !tl.drawn) { tl.drawn = 1; drawTimeline(demo, +clockOf(demo).dataset.value); }
    if (past) demo.dataset.past = 'true'; else delete demo.dataset.past;
    demo.querySelectorAll('[ws-send]').forEach(function (b) {
      if (b.matches('[data-timeline], .room-panel *, .room-open')) return;
      if (past) {
        if (!b.disabled) { b.disabled = true; b.setAttribute('data-past-off', ''); }
      } else if (b.hasAttribute('data-past-off')) {
        b.disabled = false; b.removeAttribute('data-past-off');
      }
    });
  }
  demos().forEach(pastMode);
  document.addEventListener('htmx:wsAfterMessage', function (e) { var d = demoOf(e.target); if (d) pastMode(d); });
  function placeMarks(tl) {
    var min = +tl.min, span = Math.max(1, tl.max - min);
    tl.parentNode.querySelectorAll('.tl-mark').forEach(function (m) {
      var left = ((m.dataset.at - min) / span * 100).toFixed(2) + '%';
      if (m.style.left !== left) m.style.left = left;
    });
  }
  // A frame carries the link to the moment once (data-value): the page
  // makes it the href, and the same under /embed/ its data-embed (as the
  // frame is swapped, and as the clock moves the moment on).
  function fillShare(a) {
    var v = a.dataset.value;
    if (v) { a.href = v; a.dataset.embed = v.replace(/^([^/]*\/\/[^/]+)?\//, '$1/embed/'); }
  }
  function moveShare(demo, ms) {
    var a = demo.querySelector('[data-testid="share-moment"]');
    if (a && a.dataset.value) { a.dataset.value = a.dataset.value.replace(/([?&]at=)\d+/, '$1' + ms); fillShare(a); }
  }
  function drawTimeline(demo, now) {
    var tl = timelineOf(demo); if (!tl) return;
    if (tl.dataset.mode === 'live') {
      var ms = String(Math.max(Math.floor(now), +tl.dataset.max || 0));
      if (tl.max !== ms && document.activeElement !== tl) {
        tl.max = ms; // before the value, which the old max would clamp
        tl.value = tl.dataset.max = tl.dataset.value = ms;
        tl.setAttribute('aria-valuetext', clockText(Number(ms)));
        moveShare(demo, ms);
      }
    }
    placeMarks(tl);
  }
  function marksOf(tl) {
    return Array.from(tl.parentNode.querySelectorAll('.tl-mark'), function (m) { return +m.dataset.at; })
      .sort(function (a, b) { return a - b; });
  }
  function setTimeline(tl, ms) {
    tl.asked = 1; // until the answer's range replaces it
    if (+ms > +tl.max) tl.max = ms; // a range of the present not drawn to now: its max would clamp ms
    tl.value = ms;
    tl.dispatchEvent(new Event('change', { bubbles: true }));
  }
  document.addEventListener('keydown', function (e) {
    var tl = e.target;
    if (!tl.matches || !tl.matches('[data-testid="timeline"]')) return;
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    // From the present (which a focused range may show long past: the page
    // does not move it under the reader's hand), ← goes to the newest mark
    // and → nowhere; a second press before the answer goes on from the first.
    var back = e.key === 'ArrowLeft', live = tl.dataset.mode === 'live' && !tl.asked;
    if (live && !back) return;
    var v = live ? 1 / 0 : +tl.value;
    var to = marksOf(tl).filter(function (m) { return back ? m < v : m > v; })[back ? 'pop' : 'shift']();
    setTimeline(tl, to === undefined ? (back ? tl.min : tl.max) : to);
  }, true);
  document.addEventListener('click', function (e) {
    var m = e.target.closest('.tl-mark');
    if (!m) return;
    var tl = m.closest('.tl-track').querySelector('[data-testid="timeline"]');
    if (tl && !tl.disabled) setTimeline(tl, m.dataset.at);
  });

  // Keyboard shortcuts for a presenter.
  document.addEventListener('pointerdown', function (e) { var d = demoOf(e.target); if (d) active = d; }, true);
  document.addEventListener('focusin', function (e) { var d = demoOf(e.target); if (d) active = d; });

  function typing(el) {
    if (!el) return false;
    var tag = el.tagName;
    if (el.isContentEditable || tag === 'TEXTAREA' || tag === 'SELECT') return true;
    return tag === 'INPUT' && !/^(button|checkbox|radio|range|submit|reset)$/i.test(el.type);
  }

  function press(demo, selector) {
    var b = demo.querySelector(selector);
    if (b && !b.disabled) { b.click(); return true; }
    return false;
  }

  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing(e.target)) return;
    var help = document.getElementById('help');
    if (e.key === '?') {
      if (!help || !help.open) { showHelp(); e.preventDefault(); }
      return;
    }
    if (helpLoading || help && help.open) return;
    var demo = active && document.body.contains(active) ? active : demos()[0];
    if (!demo) return;
    // + (or =), - (or _), k, c, s, r and Space, whatever the case: the
    // control with that data-key (k: the first pod's kill).
    var key = { '=': '+', '_': '-' }[e.key] || e.key.toLowerCase();
    if (key.length !== 1 || '+-kcsr '.indexOf(key) < 0) return;
    // Space on a focused button presses that button, as it should.
    if (key === ' ' && (e.target.tagName === 'BUTTON' || e.target.tagName === 'A')) return;
    if (press(demo, key === 'k' ? '[data-testid="kill"]:not([disabled]), [data-testid="kill-member"]:not([disabled])'
      : '[data-key="' + key + '"]')) e.preventDefault();
  });

  document.addEventListener('click', function (e) {
    if (e.target.closest('[data-help-open]')) showHelp();
  });

  // The help dialog and what it does are loaded when it is first opened
  // (most readers never open it): the body's data-help names the script
  // (help-<lang>.js, cached for good; static/help.js), which adds the dialog
  // and opens it on 'help:open' with the demo in use. Shortcuts wait while
  // it loads, as while it is open.
  var helpLoading = false;
  function showHelp() {
    var help = document.getElementById('help');
    if (help) {
      if (!help.open) document.dispatchEvent(new CustomEvent('help:open', { detail: active && document.body.contains(active) ? active : demos()[0] }));
      return;
    }
    if (helpLoading) return;
    helpLoading = true;
    var s = document.createElement('script');
    s.src = document.body.dataset.help;
    s.onload = function () { helpLoading = false; showHelp(); };
    s.onerror = function () { helpLoading = false; s.remove(); }; // the next press tries again
    document.head.append(s);
  }

  // Virtual time runs in the page between frames. Each demo's clock says
  // the virtual time at its frame, the speed and whether it is paused; the
  // page runs it on and draws from it what only time changes: the clock,
  // the countdowns ("starts in 1.1 s") and the timeline's end (and
  // chart.js, from the clock, the charts' scrolling). So the server sends a
  // frame only when something happens.
  var bases = new WeakMap(); // clock element -> { ms, t, stopped }
  function clockOf(demo) { return demo.querySelector('[data-testid="clock"]'); }
  function connOpen(demo) {
    var c = demo.querySelector('[data-testid="connection"]');
    return !c || c.dataset.state === 'open';
  }
  function virtualNow(demo) {
    var c = clockOf(demo); if (!c) return null;
    var b = bases.get(c);
    var t = performance.now();
    if (!b) { b = { ms: Number(c.dataset.value) || 0, t: t, stopped: false }; bases.set(c, b); }
    if (b.stopped || c.dataset.paused === 'true') return b.ms;
    if (!connOpen(demo)) { b.ms += (t - b.t) * speedOf(c); b.t = t; b.stopped = true; return b.ms; }
    return b.ms + (t - b.t) * speedOf(c);
  }
  // The server's test-only time scale (TIME_SCALE) runs the clocks faster.
  var timeScale = Number(document.body && document.body.dataset.timeScale) || 1;
  function speedOf(c) { return (Number(c.dataset.speed) || 1) * timeScale; }
  function clockText(ms) {
    var d = Math.round(ms / 100); // tenths of a second
    var m = Math.floor(d / 600), s = (d % 600) / 10;
    return (m < 10 ? '0' : '') + m + ':' + (s < 10 ? '0' : '') + s.toFixed(1);
  }
  function drawTime() {
    demos().forEach(function (demo) {
      var now = virtualNow(demo); if (now === null) return;
      var c = clockOf(demo), ms = String(Math.floor(now));
      if (c.dataset.value !== ms) {
        c.dataset.value = ms;
        var v = c.querySelector('.clock-value'); if (v) v.textContent = clockText(now);
      }
      demo.querySelectorAll('[data-eta]').forEach(function (el) {
        var left = Math.max(0, Number(el.dataset.eta) - now) / 1000;
        var text = (el.dataset.etaFormat || '%.1f').replace('%.1f', left.toFixed(1));
        if (el.textContent !== text) el.textContent = text;
      });
      drawTimeline(demo, now);
    });
  }
  setInterval(drawTime, 100);

  // Hidden tabs let go. A page hidden for a minute closes its sockets
  // (normal closure, so htmx-ext-ws does not reconnect) and the server
  // holds only readers who look; shown again, it reconnects and resumes
  // from its snapshot (the session may have expired meanwhile: the
  // snapshot rebuilds it, as after a restart).
  var HIDDEN_CLOSE_MS = 60000;
  var sockets = {};  // socket query (demo and session, or room) -> the raw WebSocket htmx-ext-ws opened
  function socketKey(url) { return String(url).split('/ws?')[1] || ''; }
  function demoSocket(d) { return socketKey(d.getAttribute('ws-connect')); }
  var asleep = false, hideTimer = null;
  htmx.createWebSocket = function (url) {
    var ws = new WebSocket(url, []);
    ws.binaryType = htmx.config.wsBinaryType;
    sockets[socketKey(url)] = ws;
    return ws;
  };
  function sleepSockets() {
    hideTimer = null;
    asleep = true;
    demos().forEach(function (d) {
      var ws = sockets[demoSocket(d)];
      d.dataset.asleep = 'true';
      if (ws && ws.readyState <= 1) ws.close(1000, 'page hidden');
    });
  }
  function wakeSockets() {
    if (hideTimer) { clearTimeout(hideTimer); hideTimer = null; }
    if (!asleep) return;
    asleep = false;
    demos().forEach(function (d) {
      d.removeAttribute('data-asleep');
      if (d.ws) d.ws.reconnect(); // its socket wrapper, kept at its first frame
    });
  }
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') {
      if (!hideTimer && !asleep) hideTimer = setTimeout(sleepSockets, HIDDEN_CLOSE_MS);
    } else {
      wakeSockets();
    }
  });
})();
