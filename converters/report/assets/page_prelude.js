
(function () {
  'use strict';
  var errors = [], charts = 0, sorted = -1;
  function status() {
    var el = document.getElementById('render-status');
    if (!el) return;
    // For tests and headless browsers only: the element is hidden and the
    // status lives in its data-status attribute, never on screen.
    var bad = errors.length > 0;
    el.setAttribute('data-status', (bad ? 'error' : 'ok') + ' charts=' + charts + ' errors=' + errors.length +
        (sorted >= 0 ? ' sorted=' + sorted : '') + (bad ? ': ' + errors.join('; ') : ''));
  }
  window.onerror = function (msg, src, line) {
    errors.push(String(msg) + (line ? ' (line ' + line + ')' : ''));
    status();
  };

  // ---- DOM helpers: all data goes in as text, never as markup.
  var SVGNS = 'http://www.w3.org/2000/svg';
  function attrs(e, a) {
    for (var k in a) {
      if (!a.hasOwnProperty(k) || a[k] === null || a[k] === undefined) continue;
      if (k === 'text') e.textContent = a[k];
      else if (k === 'cls') e.setAttribute('class', a[k]);
      else e.setAttribute(k, a[k]);
    }
    return e;
  }
  function kids(e, list) {
    (list || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    });
    return e;
  }
  function h(tag, a, c) { return kids(attrs(document.createElement(tag), a || {}), c); }
  function s(tag, a, c) { return kids(attrs(document.createElementNS(SVGNS, tag), a || {}), c); }

  // ---- Formatting.
  function fx(v, d) { return (+v || 0).toFixed(d); }
