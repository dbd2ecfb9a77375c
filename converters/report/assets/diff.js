  function ms(v) { v = +v || 0; var a = Math.abs(v); return a >= 1000 ? fx(v, 0) : a >= 100 ? fx(v, 1) : a >= 10 ? fx(v, 2) : fx(v, 3); }
  function sms(v) { return (v > 0 ? '+' : '') + ms(v); }
  function us(v) { v = +v || 0; return v >= 1000 ? fx(v, 0) : fx(v, 2); }
  function spct(v) { return (v > 0 ? '+' : '') + fx(v, 1) + '%'; }
  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function bytes(b) {
    b = +b || 0;
    var v = Math.abs(b), i = 0;
    while (v >= 1024 && i < 5) { v /= 1024; i++; }
    return (b < 0 ? '-' : '') + (i === 0 ? String(v) : fx(v, v >= 100 ? 0 : v >= 10 ? 1 : 2)) + ' ' + UNITS[i];
  }
  function sbytes(b) { return (b > 0 ? '+' : '') + bytes(b); }
  function dash() { return '\u2013'; }
  function shortName(name, max) {
    var n = String(name).replace(/^void /, '').replace(/\(.*\)$/, '');
    return n.length > max ? n.slice(0, max - 1) + '\u2026' : n;
  }
  function ticks(lo, hi, n) {
    var raw = (hi - lo) / n, p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10)), m = raw / p;
    var step = (m > 5 ? 10 : m > 2 ? 5 : m > 1 ? 2 : 1) * p, t = [];
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) t.push(+v.toPrecision(12));
    return t;
  }

  function card(k, v, sub, cls) {
    return h('div', {cls: 'card'}, [h('div', {cls: 'k'}, [k]), h('div', {cls: 'v ' + (cls || '')}, [v]),
                                     sub ? h('div', {cls: 's'}, [sub]) : null]);
  }
  function badge(text, cls) { return h('span', {cls: 'badge ' + (cls || text)}, [text]); }
  function panel(title, body) { return h('div', {cls: 'panel'}, [h('h3', {}, title)].concat(body)); }
  function safely(what, f) {
    try { return f(); } catch (e) {
      errors.push(what + ': ' + (e && e.message ? e.message : String(e)));
      return h('div', {cls: 'error-box'}, [what + ' failed: ' + e]);
    }
  }

  // ---- The change of each step-time category: bars left (faster) or right
  // (slower) of a zero line.
  function categoryChart(cats) {
    var W = 900, rowH = 26, left = 190, right = 90, top = 24, H = top + rowH * cats.length + 28;
    var lo = 0, hi = 0;
    cats.forEach(function (c) { lo = Math.min(lo, c.deltaMs); hi = Math.max(hi, c.deltaMs); });
    if (lo === hi) { lo -= 1; hi += 1; }
    var span = hi - lo; lo -= span * 0.05; hi += span * 0.05;
    var plotW = W - left - right;
    function x(v) { return left + (v - lo) / (hi - lo) * plotW; }
    var svg = s('svg', {cls: 'chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img',
                        'aria-label': 'Change of the average step time per category'});
    ticks(lo, hi, 6).forEach(function (t) {
      svg.appendChild(s('line', {cls: 'grid', x1: x(t), x2: x(t), y1: top - 6, y2: H - 24}));
      svg.appendChild(s('text', {x: x(t), y: H - 8, 'text-anchor': 'middle', text: sms(t)}));
    });
    svg.appendChild(s('line', {cls: 'zero', x1: x(0), x2: x(0), y1: top - 8, y2: H - 22}));
    cats.forEach(function (c, i) {
      var y = top + i * rowH, d = c.deltaMs, x0 = x(Math.min(0, d)), x1 = x(Math.max(0, d));
      var g = s('g', {cls: 'bar'});
      g.appendChild(s('title', {text: c.label + ': ' + ms(c.baseMs) + ' \u2192 ' + ms(c.newMs) + ' ms (' + sms(d) + ')'}));
      g.appendChild(s('text', {cls: 'axis-label', x: left - 8, y: y + rowH / 2 + 4, 'text-anchor': 'end', text: c.label}));
      g.appendChild(s('rect', {cls: d > 0 ? 'up' : 'down', x: x0, y: y + 4, width: Math.max(1, x1 - x0), height: rowH - 8}));
      // The value beside the bar, or inside it where there is no room.
      var inside = d >= 0 ? x1 + 80 > W : x0 - 80 < left;
      var tx = d >= 0 ? (inside ? x1 - 5 : x1 + 5) : (inside ? x0 + 5 : x0 - 5);
      var anchor = (d >= 0) !== inside ? 'start' : 'end';
      g.appendChild(s('text', {x: tx, y: y + rowH / 2 + 4, 'text-anchor': anchor,
                                style: inside ? 'fill:#fff' : null, text: sms(d) + ' ms'}));
      svg.appendChild(g);
    });
    charts++;
    return svg;
  }

  // ---- Sortable tables. cols: {label, get(row) -> sort value, fmt(row) ->
  // text or node, str: true for text columns, cls(row)}.
  function sortableTable(cols, rows, cls) {
    rows = rows.slice();
    var sortCol = -1, desc = true, heads = [], tbody = h('tbody');
    function key(row, c) {
      var v = c.get(row);
      if (c.str) return v === null || v === undefined ? '' : String(v);
      return v === null || v === undefined ? -Infinity : +v;
    }
    function render() {
      if (sortCol >= 0) {
        var c = cols[sortCol];
        rows.sort(function (a, b) {
          var x = key(a, c), y = key(b, c);
          var r = c.str ? x.localeCompare(y) : (x < y ? -1 : x > y ? 1 : 0);
          return desc ? -r : r;
        });
      }
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      rows.forEach(function (row) {
        tbody.appendChild(h('tr', {}, cols.map(function (c) {
          var v = c.fmt(row), full = c.title ? c.title(row) : null;
          return h('td', {cls: (c.str ? (c.name ? 'name' : '') : 'num') + (c.cls ? ' ' + c.cls(row) : ''),
                          title: full, 'data-sort': String(key(row, c))}, [v]);
        })));
      });
      heads.forEach(function (th, i) {
        th.setAttribute('aria-sort', i === sortCol ? (desc ? 'descending' : 'ascending') : 'none');
      });
    }
    var tr = h('tr', {}, cols.map(function (c, i) {
      var th = h('th', {cls: c.str ? '' : 'num', title: 'Sort by ' + c.label}, [c.label]);
      th.addEventListener('click', function () {
        if (sortCol === i) desc = !desc; else { sortCol = i; desc = !c.str; }
        render();
      });
      heads.push(th);
      return th;
    }));
    render();
    return h('div', {cls: 'table-wrap'}, [h('table', {cls: 'sortable ' + (cls || '')}, [h('thead', {}, [tr]), tbody])]);
  }

  function aggCols(nameLabel) {
    function side(r, k) { return r[k]; }
    function num(k, f, fmt) {
      return function (r) { var a = side(r, k); return a ? (fmt ? fmt(a[f]) : a[f]) : null; };
    }
    function show(k, f, fmt) { return function (r) { var a = side(r, k); return a ? fmt(a[f]) : dash(); }; }
    return [
      {label: nameLabel, str: true, name: true, get: function (r) { return r.name; },
       fmt: function (r) { return shortName(r.name, 70); }, title: function (r) { return r.name; }},
      {label: 'Count base', get: num('base', 'count'), fmt: show('base', 'count', String)},
      {label: 'Count new', get: num('new', 'count'), fmt: show('new', 'count', String)},
      {label: 'Base ms', get: num('base', 'totalMs'), fmt: show('base', 'totalMs', ms)},
      {label: 'New ms', get: num('new', 'totalMs'), fmt: show('new', 'totalMs', ms)},
      {label: '\u0394 ms', get: function (r) { return r.deltaMs; }, fmt: function (r) { return sms(r.deltaMs); },
       cls: function (r) { return r.deltaMs > 0 ? 'slower' : r.deltaMs < 0 ? 'faster' : ''; }},
      {label: 'Base mean \u00b5s', get: num('base', 'meanUs'), fmt: show('base', 'meanUs', us)},
      {label: 'New mean \u00b5s', get: num('new', 'meanUs'), fmt: show('new', 'meanUs', us)},
      {label: 'Mean \u0394', get: function (r) { return r.base && r.new ? r.meanDeltaPct : null; },
       fmt: function (r) { return !r.base ? 'new' : !r.new ? 'gone' : spct(r.meanDeltaPct); },
       cls: function (r) { return !r.base ? 'new' : !r.new ? 'gone' : ''; }}
    ];
  }

  function tablePanel(title, table, nameLabel, note) {
    var shown = table.rows.length, total = table.inBoth + table.onlyBase + table.onlyNew;
    return panel([title], [
      h('p', {cls: 'muted'}, [table.inBoth + ' in both, ' + table.onlyBase + ' only in base, ' + table.onlyNew +
                               ' only in new' + (shown < total ? '; the ' + shown + ' largest changes shown' : '') +
                               (note ? '. ' + note : '')]),
      sortableTable(aggCols(nameLabel), table.rows)]);
  }

  function memoryPanel(memory) {
    if (!memory.length) return panel(['Memory peak'], [h('p', {cls: 'muted'}, ['No memory events in either profile.'])]);
    return panel(['Memory peak per allocator'], [sortableTable([
      {label: 'Allocator', str: true, get: function (m) { return m.allocator; }, fmt: function (m) { return m.allocator; }},
      {label: 'Base', get: function (m) { return m.baseBytes; }, fmt: function (m) { return m.baseBytes === null ? dash() : bytes(m.baseBytes); }},
      {label: 'New', get: function (m) { return m.newBytes; }, fmt: function (m) { return m.newBytes === null ? dash() : bytes(m.newBytes); }},
      {label: '\u0394', get: function (m) { return m.deltaBytes; },
       fmt: function (m) { return m.deltaBytes === null ? (m.baseBytes === null ? 'new' : 'gone') : sbytes(m.deltaBytes); },
       cls: function (m) { return m.deltaBytes > 0 ? 'slower' : m.deltaBytes < 0 ? 'faster' : ''; }}
    ], memory, 'compact')]);
  }

  function stepCards(d) {
    var st = d.stepTime, b = d.base.steps, n = d['new'].steps;
    function side(x) { return x.count ? ms(x.meanMs) + ' ms' : dash(); }
    function sub(x) { return x.count ? 'sd ' + ms(x.sdMs) + ' \u00b7 ' + x.count + ' steps \u00b7 ' + ms(x.minMs) + '\u2013' + ms(x.maxMs) : 'no steps'; }
    var cards = [card('Base step', side(b), sub(b)), card('New step', side(n), sub(n))];
    if (st.available) {
      cards.push(card('Change', sms(st.deltaMs) + ' ms', spct(st.deltaPct) + ' \u00b7 noise ' + st.noise,
                      st.deltaMs > 0 ? 'slower' : st.deltaMs < 0 ? 'faster' : ''));
    }
    cards.push(card('Kernel time', ms(d.base.kernels.totalMs) + ' \u2192 ' + ms(d['new'].kernels.totalMs) + ' ms',
                    d.base.kernels.count + ' \u2192 ' + d['new'].kernels.count + ' launches'));
    var verdict = [h('p', {}, [st.available ? badge(st.noise + ' noise', st.noise) : null, ' ', d.verdict])];
    if (d.gate) {
      verdict.push(h('p', {}, [badge(d.gate.tripped ? 'gate tripped' : 'gate passed', d.gate.tripped ? 'tripped' : 'passed'),
                                ' --fail-if-slower ' + d.gate.failIfSlowerPct + ': ' + d.gate.message]));
    }
    verdict.push(h('p', {cls: 'muted'}, ['Noise rule: ' + st.noiseRule + '.']));
    return [h('div', {cls: 'cards'}, cards), panel(['Verdict'], verdict)];
  }

  function main() {
    var d = JSON.parse(document.getElementById('tbprof-data').textContent);
    var app = document.getElementById('app');
    drawDiff(d, app, true);
  }

  // Draws the diff object `d` (`tbprof diff --json`) into `app`: with
  // `page`, under the page's header and above its footer; without, the
  // panels only (tbprof's TensorBoard tab).
  function drawDiff(d, app, page) {
    if (page) app.appendChild(h('header', {cls: 'page'}, [
      h('h1', {}, ['tbprof diff']),
      h('div', {cls: 'sub'}, ['base: ' + d.base.source + ' (' + d.base.hosts.length + ' host' + (d.base.hosts.length === 1 ? '' : 's') + ')']),
      h('div', {cls: 'sub'}, ['new: ' + d['new'].source + ' (' + d['new'].hosts.length + ' host' + (d['new'].hosts.length === 1 ? '' : 's') + ')'])]));
    var m = h('main');
    app.appendChild(m);
    var head = safely('steps', function () { return stepCards(d); });
    (Array.isArray(head) ? head : [head]).forEach(function (e) { m.appendChild(e); });
    if (d.categories.length) {
      m.appendChild(safely('breakdown', function () {
        return panel(['Step-time breakdown: change per category (average ms per step)'], [
          categoryChart(d.categories),
          sortableTable([
            {label: 'Category', str: true, get: function (c) { return c.label; }, fmt: function (c) { return c.label; }},
            {label: 'Base ms', get: function (c) { return c.baseMs; }, fmt: function (c) { return ms(c.baseMs); }},
            {label: 'New ms', get: function (c) { return c.newMs; }, fmt: function (c) { return ms(c.newMs); }},
            {label: '\u0394 ms', get: function (c) { return c.deltaMs; }, fmt: function (c) { return sms(c.deltaMs); },
             cls: function (c) { return c.deltaMs > 0 ? 'slower' : c.deltaMs < 0 ? 'faster' : ''; }}
          ], d.categories, 'compact')]);
      }));
    }
    m.appendChild(safely('kernels', function () { return tablePanel('Kernels', d.kernels, 'Kernel', 'Totals cover each whole profile.'); }));
    m.appendChild(safely('operators', function () {
      return tablePanel('Operators (GPU time of the kernels each framework op launched)', d.operators, 'Operator');
    }));
    m.appendChild(safely('communication', function () {
      var c = d.communication;
      if (!c.base.count && !c['new'].count) return panel(['Communication'], [h('p', {cls: 'muted'}, ['No collective (nccl*) kernels in either profile.'])]);
      return tablePanel('Communication: collective kernels (' + ms(c.base.totalMs) + ' \u2192 ' + ms(c['new'].totalMs) + ' ms, ' + sms(c.deltaMs) + ')',
                        c.kernels, 'Collective kernel');
    }));
    m.appendChild(safely('memory', function () { return memoryPanel(d.memory); }));
    if (page) m.appendChild(h('footer', {}, ['Generated by tbprof diff. Self-contained: no network access.']));
  }

  // What lib_epilogue.js registers as window.tbprofLibs.diff: renderDiff(d,
  // root) draws and reports the render status like renderView of report.js.
  function libExports() {
    return {name: 'diff', renderDiff: function (d, root) {
      errors.length = 0;
      charts = 0;
      drawDiff(d, root, false);
      status();
      return errors.slice();
    }};
  }

  // With "#selftest" in the URL, click every sortable table's headers and
  // check the row order each time.
  function selfTest() {
    function column(table, i) {
      return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[i].getAttribute('data-sort'); });
    }
    function expectOrder(values, cmp, what) {
      for (var i = 1; i < values.length; i++) {
        if (cmp(values[i - 1], values[i]) > 0) throw new Error(what + ' not sorted at row ' + i);
      }
    }
    function num(a, b) { return parseFloat(a) - parseFloat(b); }
    var tables = document.querySelectorAll('table.sortable');
    Array.prototype.forEach.call(tables, function (t) {
      var ths = t.tHead.rows[0].cells, c = ths.length - 1;
      ths[c].click();
      expectOrder(column(t, c).filter(function (v) { return v !== '-Infinity'; }), function (a, b) { return num(b, a); }, 'descending');
      ths[c].click();
      if (ths[c].getAttribute('aria-sort') !== 'ascending') throw new Error('aria-sort not updated');
      expectOrder(column(t, c).filter(function (v) { return v !== '-Infinity'; }), num, 'ascending');
      ths[0].click();
      expectOrder(column(t, 0), function (a, b) { return a.localeCompare(b); }, 'name ascending');
    });
    return tables.length;
  }
