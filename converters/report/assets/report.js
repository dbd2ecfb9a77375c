  function ms(v) { v = +v || 0; return v >= 1000 ? fx(v, 0) : v >= 100 ? fx(v, 1) : v >= 10 ? fx(v, 2) : fx(v, 3); }
  function us(v) { v = +v || 0; return v >= 1000 ? fx(v, 0) : fx(v, 2); }
  function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }
  function pct(v) { return fx(v, 1) + '%'; }
  function num(v) { return String(+(+v).toPrecision(6)); }
  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function bytes(b) {
    b = +b || 0;
    var v = Math.abs(b), i = 0;
    while (v >= 1024 && i < 5) { v /= 1024; i++; }
    return (b < 0 ? '-' : '') + (i === 0 ? String(v) : fx(v, v >= 100 ? 0 : v >= 10 ? 1 : 2)) + ' ' + UNITS[i];
  }
  function ticks(max, n) {
    if (!(max > 0)) max = 1;
    var raw = max / n, p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10)), m = raw / p;
    var step = (m > 5 ? 10 : m > 2 ? 5 : m > 1 ? 2 : 1) * p, count = Math.ceil(max / step - 1e-9), t = [];
    for (var i = 0; i <= count; i++) t.push(i * step);
    return t;
  }
  // Round values in [lo, hi].
  function rangeTicks(lo, hi, n) {
    var raw = (hi - lo) / n, p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10)), m = raw / p;
    var step = (m > 5 ? 10 : m > 2 ? 5 : m > 1 ? 2 : 1) * p, t = [];
    for (var v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) t.push(+v.toPrecision(12));
    return t;
  }
  function byteTicks(max, n) {
    var k = 0;
    while (max / Math.pow(1024, k) >= 1024 && k < 5) k++;
    var u = Math.pow(1024, k);
    return ticks(max / u, n).map(function (v) { return {v: v * u, label: num(v) + ' ' + UNITS[k]}; });
  }
  // Kernel names, as the terminal report shortens them: drop "void ", the
  // parameters and namespaces inside template arguments, then cut the
  // template arguments, then the middle.
  function shortName(name, width) {
    var t = String(name), e = '\u2026';
    if (t.length <= width) return t;
    t = t.replace(/^void /, '').replace(/\(anonymous namespace\)::/g, '');
    if (t.charAt(t.length - 1) === ')') {
      var depth = 0;
      for (var i = t.length - 1; i >= 0; i--) {
        if (t.charAt(i) === ')') depth++;
        if (t.charAt(i) === '(' && --depth === 0) { if (i > 0) t = t.slice(0, i); break; }
      }
    }
    if (t.length <= width) return t;
    var out = '', d = 0;
    for (var j = 0; j < t.length; j++) {
      var c = t.charAt(j);
      if (c === '<') d++;
      if (c === '>' && d > 0) { d--; out = out.replace(/ $/, ''); }
      if (d > 0 && c === ':' && t.charAt(j + 1) === ':') { out = out.replace(/[A-Za-z0-9_]+$/, ''); j++; continue; }
      out += c;
    }
    t = out;
    if (t.length <= width) return t;
    var open = t.indexOf('<'), head = open < 0 ? t : t.slice(0, open);
    if (head.lastIndexOf('::') >= 0) head = head.slice(head.lastIndexOf('::') + 2);
    var room = width - head.length - 3;
    if (open < 0 || room < 0) {
      if (head.length <= width) return head;
      var tail = Math.floor((width - 1) / 3);
      return head.slice(0, width - 1 - tail) + e + head.slice(head.length - tail);
    }
    var args = t.slice(open + 1).replace(/>$/, ''), keep = room + 1;
    if (args.length > keep) {
      var tl = Math.floor((keep - 1) / 3);
      args = args.slice(0, keep - 1 - tl) + e + args.slice(args.length - tl);
    }
    return head + '<' + args + '>';
  }

  var COLORS = {
    device_compute: '#4e79a7', device_to_device: '#76b7b2', device_collectives: '#b07aa1',
    host_to_device: '#f28e2b', output: '#edc948', input: '#e15759', kernel_launch: '#59a14f',
    host_compute: '#9c755f', host_compile: '#ff9da7', unknown: '#bab0ac'
  };
  var ORDER = Object.keys(COLORS);
  function color(key) { return COLORS[key] || '#999'; }
  function legend(items) {
    return h('div', {cls: 'legend'}, items.map(function (it) {
      return h('span', {}, [h('i', {style: 'background:' + it.color}), it.label]);
    }));
  }
  function catLegend(cats) {
    return legend(cats.map(function (c) { return {color: color(c.key), label: c.label}; }));
  }

  // ---- Charts.
  function plot(w, ht, m, label) {
    var svg = s('svg', {viewBox: '0 0 ' + w + ' ' + ht, cls: 'chart', role: 'img', 'aria-label': label});
    return {svg: svg, w: w, h: ht, l: m[0], t: m[1], r: w - m[2], b: ht - m[3]};
  }
  function yGrid(p, tk, top, unit) {
    var g = s('g', {cls: 'axis'});
    tk.forEach(function (t) {
      var y = p.b - (t.v / top) * (p.b - p.t);
      g.appendChild(s('line', {x1: p.l, x2: p.r, y1: y, y2: y, cls: 'grid'}));
      g.appendChild(s('text', {x: p.l - 6, y: y + 4, 'text-anchor': 'end', text: t.label}));
    });
    if (unit) {
      var cy = (p.t + p.b) / 2;
      g.appendChild(s('text', {x: 14, y: cy, cls: 'axis-label', 'text-anchor': 'middle',
                               transform: 'rotate(-90 14 ' + cy + ')', text: unit}));
    }
    p.svg.appendChild(g);
  }
  function msTicks(max) { return ticks(max, 5).map(function (v) { return {v: v, label: num(v)}; }); }
  function done(svg) { charts++; return svg; }

  // One bar per step, stacked by category.
  function stepChart(host) {
    var steps = host.steps, cats = host.categories;
    if (!steps.length) return null;
    var p = plot(1000, 300, [64, 12, 12, 44], 'Step time per step, stacked by category');
    var max = 0;
    steps.forEach(function (st) {
      var sum = 0;
      st.parts.forEach(function (v) { sum += Math.max(0, v); });
      max = Math.max(max, st.ms, sum);
    });
    var tk = msTicks(max), top = tk[tk.length - 1].v || 1;
    yGrid(p, tk, top, 'ms');
    var band = (p.r - p.l) / steps.length, bw = Math.max(1, Math.min(64, band * 0.72));
    var every = Math.ceil(steps.length / 24);
    steps.forEach(function (st, i) {
      var x = p.l + band * i + (band - bw) / 2, y = p.b;
      var tip = 'Step ' + st.name + ': ' + ms(st.ms) + ' ms';
      cats.forEach(function (c, j) { if (st.parts[j] > 0) tip += '\n' + c.label + ': ' + ms(st.parts[j]) + ' ms'; });
      var g = s('g', {cls: 'bar'}, [s('title', {text: tip})]);
      cats.forEach(function (c, j) {
        var v = st.parts[j];
        if (!(v > 0)) return;
        var hh = v / top * (p.b - p.t);
        y -= hh;
        g.appendChild(s('rect', {x: x, y: y, width: bw, height: Math.max(hh, 0.5), fill: color(c.key)}));
      });
      p.svg.appendChild(g);
      if (i % every === 0) {
        p.svg.appendChild(s('text', {x: x + bw / 2, y: p.b + 16, 'text-anchor': 'middle', text: String(st.n)}));
      }
    });
    p.svg.appendChild(s('text', {x: (p.l + p.r) / 2, y: p.h - 6, 'text-anchor': 'middle',
                                 cls: 'axis-label', text: 'step'}));
    return done(p.svg);
  }

  // Horizontal bars of the top kernels by total time.
  function kernelChart(host) {
    var ks = host.kernels.slice(0, 10);
    if (!ks.length) return null;
    var rowH = 26, p = plot(1000, ks.length * rowH + 12, [0, 6, 0, 6], 'Top kernels by total time');
    var L = 430, R = 860, max = ks[0].totalMs || 1;
    ks.forEach(function (k, i) {
      var y = 6 + i * rowH, w = Math.max(1, k.totalMs / max * (R - L));
      p.svg.appendChild(s('g', {cls: 'bar'}, [
        s('title', {text: k.name + '\n' + ms(k.totalMs) + ' ms in ' + k.count + ' launches (' +
                          pct(k.pct) + ' of kernel time)' + (k.op ? '\nop: ' + k.op : '')}),
        s('text', {x: L - 8, y: y + 17, 'text-anchor': 'end', text: shortName(k.name, 58)}),
        s('rect', {x: L, y: y + 4, width: w, height: rowH - 8, rx: 2, fill: k.tc ? '#59a14f' : '#4e79a7'}),
        s('text', {x: L + w + 6, y: y + 17, text: ms(k.totalMs) + ' ms \u00b7 ' + pct(k.pct)})
      ]));
    });
    return done(p.svg);
  }

  // Memory in use over time (a step line), with the peak marked.
  function memoryChart(a) {
    var pts = a.timeline;
    if (!pts.length) return null;
    var p = plot(1000, 280, [78, 22, 16, 40], 'Memory in use over time, allocator ' + a.id);
    var t0 = Math.min(pts[0][0], a.peakMs), t1 = Math.max(pts[pts.length - 1][0], a.peakMs);
    if (!(t1 > t0)) t1 = t0 + 1;
    var maxB = a.peakBytes, anyStack = false;
    pts.forEach(function (q) { maxB = Math.max(maxB, q[1] + q[2]); if (q[2] > 0) anyStack = true; });
    var bt = byteTicks(maxB * 1.08 || 1, 4), top = bt[bt.length - 1].v || 1;
    yGrid(p, bt, top, null);
    function X(t) { return p.l + (t - t0) / (t1 - t0) * (p.r - p.l); }
    function Y(b) { return p.b - b / top * (p.b - p.t); }
    rangeTicks(t0, t1, 6).forEach(function (v) {
      p.svg.appendChild(s('line', {x1: X(v), x2: X(v), y1: p.b, y2: p.b + 4, stroke: '#9aa5b1'}));
      p.svg.appendChild(s('text', {x: X(v), y: p.b + 16, 'text-anchor': 'middle', text: num(v)}));
    });
    p.svg.appendChild(s('text', {x: (p.l + p.r) / 2, y: p.h - 6, 'text-anchor': 'middle',
                                 cls: 'axis-label', text: 'time (ms)'}));
    var d = '', dh = '';
    pts.forEach(function (q, i) {
      var x = X(q[0]).toFixed(1), y = Y(q[1] + q[2]).toFixed(1), yh = Y(q[1]).toFixed(1);
      d += i === 0 ? 'M' + x + ',' + y : 'H' + x + 'V' + y;
      dh += i === 0 ? 'M' + x + ',' + yh : 'H' + x + 'V' + yh;
    });
    var xStart = X(pts[0][0]).toFixed(1);
    p.svg.appendChild(s('path', {d: d + 'V' + p.b + 'H' + xStart + 'Z', fill: '#4e79a7', 'fill-opacity': 0.15}));
    p.svg.appendChild(s('path', {d: d, fill: 'none', stroke: '#4e79a7', 'stroke-width': 1.8}));
    if (anyStack) {
      p.svg.appendChild(s('path', {d: dh, fill: 'none', stroke: '#f28e2b', 'stroke-width': 1.2,
                                   'stroke-dasharray': '4 3'}));
    }
    var px = X(a.peakMs), py = Y(a.peakBytes), right = px > (p.l + p.r) / 2;
    p.svg.appendChild(s('line', {x1: px, x2: px, y1: py, y2: p.b, stroke: '#c62828',
                                 'stroke-dasharray': '3 3'}));
    p.svg.appendChild(s('circle', {cx: px, cy: py, r: 5, fill: '#c62828'},
                        [s('title', {text: 'peak ' + bytes(a.peakBytes) + ' at ' + ms(a.peakMs) + ' ms'})]));
    p.svg.appendChild(s('text', {x: px + (right ? -9 : 9), y: Math.max(p.t + 4, py - 8),
                                 'text-anchor': right ? 'end' : 'start', cls: 'peak-label',
                                 text: 'peak ' + bytes(a.peakBytes) + ' @ ' + ms(a.peakMs) + ' ms'}));
    return done(p.svg);
  }

  // Average step per host, stacked by category, with min-max whiskers.
  function compareChart(hosts) {
    var hs = hosts.filter(function (x) { return x.steps.length; });
    if (hs.length < 2) return null;
    var p = plot(1000, 320, [64, 12, 12, hs.length > 8 ? 90 : 40], 'Average step time per host');
    var max = 0;
    hs.forEach(function (x) { max = Math.max(max, x.step.maxMs, x.step.avgMs); });
    var tk = msTicks(max), top = tk[tk.length - 1].v || 1;
    yGrid(p, tk, top, 'ms');
    function Y(v) { return p.b - v / top * (p.b - p.t); }
    var band = (p.r - p.l) / hs.length, bw = Math.max(2, Math.min(70, band * 0.6));
    hs.forEach(function (x, i) {
      var cx = p.l + band * (i + 0.5), y = p.b, total = 0;
      x.categories.forEach(function (c) { total += Math.max(0, c.avgMs); });
      var scale = total > 0 ? x.step.avgMs / total : 0;
      var tip = x.host + ': avg ' + ms(x.step.avgMs) + ' ms (min ' + ms(x.step.minMs) + ', max ' + ms(x.step.maxMs) + ')';
      var g = s('g', {cls: 'bar'}, [s('title', {text: tip})]);
      x.categories.forEach(function (c) {
        var hh = Math.max(0, c.avgMs) * scale / top * (p.b - p.t);
        if (!(hh > 0)) return;
        y -= hh;
        g.appendChild(s('rect', {x: cx - bw / 2, y: y, width: bw, height: hh, fill: color(c.key)}));
      });
      var w = bw / 4;
      g.appendChild(s('path', {d: 'M' + (cx - w) + ',' + Y(x.step.minMs) + 'H' + (cx + w) + 'M' + cx + ',' +
                                  Y(x.step.minMs) + 'V' + Y(x.step.maxMs) + 'M' + (cx - w) + ',' +
                                  Y(x.step.maxMs) + 'H' + (cx + w),
                               stroke: '#1f2933', 'stroke-width': 1.2, fill: 'none'}));
      p.svg.appendChild(g);
      var fit = Math.max(8, Math.floor(band / 7.5)), half = Math.floor((fit - 1) / 2);
      var label = x.host.length > fit ? x.host.slice(0, fit - 1 - half) + '\u2026' + x.host.slice(-half) : x.host;
      p.svg.appendChild(s('text', hs.length > 8 ?
          {x: cx, y: p.b + 12, 'text-anchor': 'end', transform: 'rotate(-40 ' + cx + ' ' + (p.b + 12) + ')', text: label} :
          {x: cx, y: p.b + 16, 'text-anchor': 'middle', text: label}));
    });
    return done(p.svg);
  }

  // ---- Tables.
  function table(cols, rows, cls) {
    return h('table', {cls: cls || ''}, [
      h('thead', {}, [h('tr', {}, cols.map(function (c) { return h('th', {cls: c.num ? 'num' : ''}, [c.label]); }))]),
      h('tbody', {}, rows.map(function (r) {
        return h('tr', {}, cols.map(function (c) { return h('td', {cls: c.num ? 'num' : ''}, [c.get(r)]); }));
      }))]);
  }
  function dash(v) { return v > 0 ? fx(v, 0) : '\u2013'; }
  // A table sorted by clicking a column header (descending first for
  // numbers). Columns: {key, label, str: text column, fmt(value, row): cell
  // text, disp(value, row): shortened text (the full value goes in the
  // title), bar(value, row): 0..100 for a small bar before the number, cls}.
  // `numCol` names the numeric column the #selftest clicks.
  function sortableTable(cols, rows, sortKey, numCol, cls) {
    rows = rows.slice();
    var desc = true, heads = [], tbody = h('tbody');
    function cmp(a, b) {
      var x = a[sortKey], y = b[sortKey];
      var c = typeof x === 'string' ? x.localeCompare(y) : (+x) - (+y);
      return desc ? -c : c;
    }
    function cell(c, r) {
      var v = r[c.key];
      if (c.disp) return h('td', {cls: c.cls || 'name', title: v}, [c.disp(v, r)]);
      if (c.str) return h('td', {cls: c.cls || ''}, [v]);
      var text = c.fmt ? c.fmt(v, r) : String(v);
      if (c.bar) {
        var w = Math.min(60, Math.max(0, c.bar(v, r)) * 0.6 + 1);
        return h('td', {cls: 'num'}, [h('span', {cls: 'cellbar', style: 'width:' + w + 'px'}), text]);
      }
      return h('td', {cls: 'num'}, [text]);
    }
    function render() {
      rows.sort(cmp);
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      rows.forEach(function (r) { tbody.appendChild(h('tr', {}, cols.map(function (c) { return cell(c, r); }))); });
      heads.forEach(function (th, i) {
        th.setAttribute('aria-sort', cols[i].key === sortKey ? (desc ? 'descending' : 'ascending') : 'none');
      });
    }
    var tr = h('tr', {}, cols.map(function (c) {
      var th = h('th', {cls: c.str || c.disp ? '' : 'num', title: 'Sort by ' + c.label}, [c.label]);
      th.addEventListener('click', function () {
        if (sortKey === c.key) desc = !desc; else { sortKey = c.key; desc = !(c.str || c.disp); }
        render();
      });
      heads.push(th);
      return th;
    }));
    render();
    return h('div', {cls: 'table-wrap'}, [h('table', {cls: (cls || '') + ' sortable', 'data-num-col': numCol},
                                             [h('thead', {}, [tr]), tbody])]);
  }
  var KCOLS = [
    {key: 'name', label: 'Kernel', disp: function (v) { return shortName(v, 60); }},
    {key: 'op', label: 'Op', disp: function (v) { return v; }, cls: 'op'},
    {key: 'count', label: 'Count', fmt: String},
    {key: 'totalMs', label: 'Total ms', fmt: ms},
    {key: 'avgUs', label: 'Avg \u00b5s', fmt: us},
    {key: 'minUs', label: 'Min \u00b5s', fmt: us},
    {key: 'maxUs', label: 'Max \u00b5s', fmt: us},
    {key: 'pct', label: '% time', fmt: pct, bar: function (v) { return v; }},
    {key: 'occ', label: 'Occ %', fmt: dash},
    {key: 'tc', label: 'TC', fmt: function (v) { return v ? 'yes' : 'no'; }},
    {key: 'regs', label: 'Regs', fmt: String},
    {key: 'smem', label: 'Shmem', fmt: bytes},
    {key: 'grid', label: 'Grid', str: true},
    {key: 'block', label: 'Block', str: true}
  ];
  function kernelTable(host) { return sortableTable(KCOLS, host.kernels, 'totalMs', 2, 'kernels'); }

  // ---- Sections.
  function card(k, v, sub, title) {
    // A `title` (the full text of a shortened name) marks the value as a name: smaller, one line.
    return h('div', {cls: 'card'}, [h('div', {cls: 'k'}, [k]), h('div', {cls: title ? 'v name' : 'v', title: title || null}, [v]),
      sub ? h('div', {cls: 's'}, [sub]) : null]);
  }
  function badge(text) { return h('span', {cls: 'badge ' + text}, [text]); }
  function panel(title, body) { return h('div', {cls: 'panel'}, [h('h3', {}, title)].concat(body)); }
  function safely(title, fn) {
    try { return fn(); } catch (e) {
      errors.push(title + ': ' + (e && e.message ? e.message : String(e)));
      return panel([title], [h('div', {cls: 'error-box', text: 'could not draw: ' + e}) ]);
    }
  }

  function cards(x) {
    var tcMs = 0;
    x.kernels.forEach(function (k) { if (k.tc) tcMs += k.totalMs; });
    var a = x.allocators[0];
    var top = x.ops.rows.length && x.ops.deviceMs > 0 && x.ops.rows[0].devSelfMs > 0 ? x.ops.rows[0] : null;
    return h('div', {cls: 'cards'}, [
      card('Average step', x.steps.length ? ms(x.step.avgMs) + ' ms' : '\u2013',
           x.steps.length ? plural(x.steps.length, 'step') + ', ' + ms(x.step.minMs) + '\u2013' + ms(x.step.maxMs) + ' ms' : 'no steps found'),
      card('Bottleneck', x.bottleneck || '\u2013', x.input.classification ? 'input: ' + x.input.classification : null),
      x.steps.length ? card('Input', pct(x.input.inputPct), 'of step time; idle ' + pct(x.input.idlePct)) : null,
      card('Kernel time', ms(x.kernelTotalMs) + ' ms', x.kernelLaunches + ' launches, ' + x.kernelReports + ' kernels'),
      top ? card('Top op', shortName(top.name, 40), ms(top.devSelfMs) + ' ms device self (' + pct(100 * top.devSelfMs / x.ops.deviceMs) + ')', top.name) : null,
      x.kernelTotalMs > 0 ? card('Tensor Cores', pct(100 * tcMs / x.kernelTotalMs), 'of kernel time') : null,
      a ? card('Peak memory', bytes(a.peakBytes), a.id + (a.capacity > 0 ? ', ' + pct(100 * a.peakBytes / a.capacity) + ' of ' + bytes(a.capacity) : '')) : null
    ]);
  }

  function verdictPanel(x) {
    var body = [h('p', {}, [x.bottleneck ? badge(x.bottleneck) : null, ' ', x.statement || 'No verdict: the profile has no steps with device activity.'])];
    if (x.recommendations.length) {
      body.push(h('ul', {cls: 'recs'}, x.recommendations.map(function (r) { return h('li', {}, [r]); })));
    }
    return panel(['Overview'], body);
  }

  // Per GPU: busy time, utilization, estimated SM efficiency, achieved
  // occupancy and Tensor Core share (torch-tb-profiler's definitions; -1 =
  // unknown, e.g. no device properties in the trace).
  function gpuPanel(x) {
    var gpus = x.gpus || [];
    if (!gpus.length) return null;
    function p(v) { return v < 0 ? '\u2013' : pct(v); }
    var over = x.gpuWindow === 'steps' ? 'over the steps' : 'over the span of the kernels';
    return panel(['GPU summary ', h('span', {cls: 'muted'}, [over])], [table([
      {label: 'GPU', get: function (g) { return String(g.ordinal); }},
      {label: 'Name', get: function (g) { return g.name || '\u2013'; }},
      {label: 'SMs', num: true, get: function (g) { return g.sms > 0 ? String(g.sms) : '\u2013'; }},
      {label: 'Busy ms', num: true, get: function (g) { return ms(g.busyMs) + ' of ' + ms(g.windowMs); }},
      {label: 'Utilization', num: true, get: function (g) { return p(g.utilPct); }},
      {label: 'Est. SM efficiency', num: true, get: function (g) { return p(g.smEffPct); }},
      {label: 'Achieved occupancy', num: true, get: function (g) { return p(g.occPct); }},
      {label: 'Tensor Cores', num: true, get: function (g) { return p(g.tcPct); }}], gpus, 'compact gpus'),
      h('p', {cls: 'muted'}, ['Utilization: time some kernel runs; SM efficiency: SMs kept busy (blocks per SM, capped at 1); occupancy: warps per SM against the maximum, weighted by kernel time; Tensor Cores: share of kernel time in Tensor Core kernels.'])]);
  }

  function stepPanel(x) {
    if (!x.steps.length) return panel(['Step time'], [h('p', {cls: 'muted'}, ['No steps found: the profile has no step markers (such as ProfilerStep#N) with device activity.'])]);
    var sub = 'avg ' + ms(x.step.avgMs) + ' ms over ' + plural(x.steps.length, 'step') + ' (min ' + ms(x.step.minMs) +
              ', max ' + ms(x.step.maxMs) + ', sd ' + ms(x.step.sdMs) + ')';
    var rows = x.categories.map(function (c) { return c; });
    return panel(['Step time ', h('span', {cls: 'muted'}, [sub])], [
      x.step.note ? h('p', {cls: 'note breakdown-note'}, [x.step.note]) : null,
      stepChart(x), catLegend(x.categories),
      table([
        {label: 'Category', get: function (c) { return h('span', {}, [h('i', {cls: 'sw', style: 'display:inline-block;width:10px;height:10px;margin-right:6px;background:' + color(c.key)}), c.label]); }},
        {label: 'Avg ms', num: true, get: function (c) { return ms(c.avgMs); }},
        {label: '% of step', num: true, get: function (c) { return h('span', {}, [h('span', {cls: 'cellbar', style: 'width:' + Math.min(60, c.pct * 0.6 + 1) + 'px;background:' + color(c.key)}), pct(c.pct)]); }}
      ], rows, 'compact')]);
  }

  function kernelPanel(x) {
    if (!x.kernels.length) return panel(['Kernels'], [h('p', {cls: 'muted'}, ['No GPU kernels with launch details in this profile.'])]);
    var more = x.kernelReports > x.kernels.length ? ' (table shows the top ' + x.kernels.length + ')' : '';
    return panel(['Kernels ', h('span', {cls: 'muted'}, [x.kernelReports + ' distinct kernels, ' + x.kernelLaunches + ' launches, ' + ms(x.kernelTotalMs) + ' ms' + more])], [
      kernelChart(x),
      legend([{color: '#4e79a7', label: 'CUDA cores'}, {color: '#59a14f', label: 'Tensor Cores'}]),
      h('p', {cls: 'muted'}, ['Click a column header to sort.']),
      kernelTable(x)]);
  }

  function inputPanel(x) {
    var i = x.input, parts = [
      {label: 'Input', v: i.inputPct, color: '#e15759'}, {label: 'Output', v: i.outputPct, color: '#edc948'},
      {label: 'Compute', v: i.computePct, color: '#4e79a7'}, {label: 'Idle / other', v: i.idlePct, color: '#bab0ac'}];
    var body = [h('p', {}, [i.classification ? badge(i.classification) : null, ' ', i.statement || 'No input-pipeline analysis (no steps).'])];
    if (x.steps.length) {
      body.push(h('div', {cls: 'split'}, parts.map(function (q) {
        return h('div', {style: 'width:' + Math.max(0, q.v) + '%;background:' + q.color, title: q.label + ' ' + pct(q.v)});
      })));
      body.push(legend(parts.map(function (q) { return {color: q.color, label: q.label + ' ' + pct(q.v)}; })));
    }
    if (i.nextStep) body.push(h('p', {cls: 'muted'}, ['Next step: ' + i.nextStep]));
    return panel(['Input pipeline'], body);
  }

  function memoryPanel(x) {
    if (!x.allocators.length) return panel(['Memory'], [h('p', {cls: 'muted'}, ['No memory allocation events in this profile.'])]);
    var body = [], more = null;
    x.allocators.forEach(function (a, i) {
      var sub = 'peak ' + bytes(a.peakBytes) + ' at ' + ms(a.peakMs) + ' ms' +
          (a.peakStack > 0 ? ' (heap ' + bytes(a.peakHeap) + ', stack ' + bytes(a.peakStack) + ')' : '') +
          (a.capacity > 0 ? ' of ' + bytes(a.capacity) : '') +
          (a.lifetimePeak > a.peakBytes ? '; lifetime peak ' + bytes(a.lifetimePeak) : '');
      var block = h('div', {cls: 'allocator'}, [
        h('h4', {}, [a.id + ' ', h('span', {cls: 'muted'}, [sub])]),
        memoryChart(a),
        legend([{color: '#4e79a7', label: 'in use (heap + stack)'}].concat(
            a.peakStack > 0 ? [{color: '#f28e2b', label: 'heap'}] : []).concat([{color: '#c62828', label: 'peak'}]))]);
      if (a.live.length) {
        kids(block, [h('p', {}, ['Live at the peak:']), h('div', {cls: 'table-wrap'}, [table([
          {label: 'Size', num: true, get: function (r) { return bytes(r.bytes); }},
          {label: 'Requested', num: true, get: function (r) { return bytes(r.requested); }},
          {label: 'Count', num: true, get: function (r) { return String(r.count); }},
          {label: 'Op', get: function (r) { return r.op || '(unknown)'; }},
          {label: 'Region', get: function (r) { return r.region; }},
          {label: 'Type', get: function (r) { return r.dtype; }},
          {label: 'Shape', get: function (r) { return r.shape; }}], a.live.slice(0, 50))])]);
      }
      // The two largest allocators open, the rest folded away.
      if (i < 2) {
        body.push(block);
      } else {
        if (!more) {
          more = h('details', {}, [h('summary', {}, [plural(x.allocators.length - 2, 'more allocator')])]);
          body.push(more);
        }
        more.appendChild(block);
      }
    });
    return panel(['Memory'], body);
  }

  function diagnosticsPanel(x) {
    if (!x.errors.length && !x.warnings.length) return null;
    return panel(['Diagnostics'], [h('ul', {cls: 'recs'}, x.errors.map(function (e) { return h('li', {}, ['error: ' + e]); })
        .concat(x.warnings.map(function (w) { return h('li', {cls: 'muted'}, [w]); })))]);
  }

  function hostSection(x, idx, multi) {
    var dev = (x.deviceType || 'unknown device') + (x.deviceCount > 0 ? ' \u00d7 ' + x.deviceCount : '');
    return h('section', {cls: 'host', id: 'host-' + idx}, [
      h('h2', {}, [multi ? 'Host ' + x.host : x.host]), h('div', {cls: 'device'}, [dev]),
      safely('cards', function () { return cards(x); }),
      safely('overview', function () { return verdictPanel(x); }),
      safely('gpu summary', function () { return gpuPanel(x); }),
      safely('step time', function () { return stepPanel(x); }),
      safely('kernels', function () { return kernelPanel(x); }),
      safely('input pipeline', function () { return inputPanel(x); }),
      safely('memory', function () { return memoryPanel(x); }),
      safely('operators', function () { return operatorsPanel(x); }),
      safely('modules', function () { return modulesPanel(x); }),
      safely('gemm', function () { return gemmPanel(x); }),
      safely('diagnostics', function () { return diagnosticsPanel(x); })]);
  }

  function comparePanel(hosts) {
    var keys = {};
    hosts.forEach(function (x) { x.categories.forEach(function (c) { keys[c.key] = c.label; }); });
    var cats = ORDER.filter(function (k) { return keys[k]; }).map(function (k) { return {key: k, label: keys[k]}; });
    return panel(['Step time across hosts'], [
      compareChart(hosts), catLegend(cats),
      h('p', {cls: 'muted'}, ['Bars: average step by category; whiskers: fastest and slowest step.']),
      table([
        {label: 'Host', get: function (x) { return h('a', {href: '#host-' + hosts.indexOf(x)}, [x.host]); }},
        {label: 'Steps', num: true, get: function (x) { return String(x.steps.length); }},
        {label: 'Avg ms', num: true, get: function (x) { return x.steps.length ? ms(x.step.avgMs) : '\u2013'; }},
        {label: 'Min ms', num: true, get: function (x) { return x.steps.length ? ms(x.step.minMs) : '\u2013'; }},
        {label: 'Max ms', num: true, get: function (x) { return x.steps.length ? ms(x.step.maxMs) : '\u2013'; }},
        {label: 'Kernel ms', num: true, get: function (x) { return ms(x.kernelTotalMs); }},
        {label: 'Peak memory', num: true, get: function (x) { return x.allocators.length ? bytes(x.allocators[0].peakBytes) : '\u2013'; }},
        {label: 'Bottleneck', get: function (x) { return x.bottleneck ? badge(x.bottleneck) : '\u2013'; }}], hosts)]);
  }

  // Gives each panel of a section an id ("<section id>-<title words>") and
  // returns [{id, label}] for the table of contents.
  function panelAnchors(section) {
    var out = [];
    Array.prototype.forEach.call(section.children, function (el) {
      if (!/(^| )panel( |$)/.test(el.className || '')) return;
      var h3 = el.querySelector('h3'), first = h3 && h3.firstChild ? h3.firstChild.textContent : '';
      var label = String(first).replace(/\s+$/, '');
      if (!label) return;
      el.id = section.id + '-' + label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-+$/, '');
      out.push({id: el.id, label: label});
    });
    return out;
  }

  // Table of contents: in-page links to every section (one host: its panels;
  // several: the comparison, each host, the distributed view).
  function toc(entries) {
    return h('nav', {cls: 'toc', 'aria-label': 'Contents'}, [h('span', {cls: 'toc-title'}, ['Contents'])].concat(
        entries.map(function (e) { return h('a', {href: '#' + e.id}, [e.label]); })));
  }

  function main() {
    var data = JSON.parse(document.getElementById('tbprof-data').textContent);
    var app = document.getElementById('app');
    var hosts = data.hosts || [], multi = hosts.length > 1;
    var header = h('header', {cls: 'page'}, [
      h('h1', {}, ['tbprof report']),
      h('div', {cls: 'sub'}, [data.source + ' \u00b7 ' + hosts.length + (multi ? ' hosts' : ' host')])]);
    app.appendChild(header);
    var m = h('main');
    app.appendChild(m);
    var entries = [];
    if (!hosts.length) m.appendChild(panel(['No data'], [h('p', {}, ['The input has no hosts.'])]));
    if (multi) {
      var cmp = safely('comparison', function () { return comparePanel(hosts); });
      cmp.id = 'compare';
      m.appendChild(cmp);
      entries.push({id: 'compare', label: 'Step time across hosts'});
    }
    hosts.forEach(function (x, i) {
      var section = hostSection(x, i, multi);
      m.appendChild(section);
      var anchors = panelAnchors(section);
      if (multi) entries.push({id: section.id, label: x.host});
      else entries = entries.concat(anchors);
    });
    if (document.getElementById('distributed')) entries.push({id: 'distributed', label: 'Distributed'});
    // Sections an input format adds (e.g. a memory snapshot's stacks).
    Array.prototype.forEach.call(document.querySelectorAll('main.appendix'), function (el) {
      var h2 = el.querySelector('h2');
      entries.push({id: el.id, label: (h2 ? h2.textContent + ': ' : '') + (el.getAttribute('data-title') || 'more')});
    });
    if (entries.length) header.appendChild(toc(entries));
  }

  // ---- One view at a time, for a page that shows the sections separately
  // (tbprof's TensorBoard tab, python/tbprof/tensorboard_plugin, loads this
  // script with lib_epilogue.js instead of page_epilogue.js). Each view takes
  // the slice of a host object that the tab serves for it (the keys its
  // panels read; views_file.py says which) and draws the same panels as the
  // page above, each in safely() so one broken panel leaves the others.
  var VIEWS = {
    overview: function (x) {
      return [safely('cards', function () { return cards(x); }),
              safely('overview', function () { return verdictPanel(x); }),
              safely('gpu summary', function () { return gpuPanel(x); }),
              safely('step time', function () { return stepPanel(x); }),
              safely('input pipeline', function () { return inputPanel(x); }),
              safely('diagnostics', function () { return diagnosticsPanel(x); })];
    },
    operators: function (x) { return [safely('operators', function () { return operatorsPanel(x); })]; },
    kernels: function (x) { return [safely('kernels', function () { return kernelPanel(x); })]; },
    memory: function (x) { return [safely('memory', function () { return memoryPanel(x); })]; },
    modules: function (x) { return [safely('modules', function () { return modulesPanel(x); })]; },
    gemm: function (x) { return [safely('gemm', function () { return gemmPanel(x); })]; },
    // {hosts: [host slices]}: the step time of every host side by side.
    hosts: function (d) { return d.hosts.length > 1 ? [safely('comparison', function () { return comparePanel(d.hosts); })] : []; }
  };

  // Draws view `name` of `data` at the end of `root`; resets and then
  // reports the render status (#render-status) as the page does. Returns the
  // errors of this drawing (empty when every panel drew).
  function renderView(name, data, root) {
    errors.length = 0;
    charts = 0;
    if (!VIEWS.hasOwnProperty(name)) throw new Error('no view named ' + name);
    VIEWS[name](data).forEach(function (el) { if (el) root.appendChild(el); });
    status();
    return errors.slice();
  }

  // What lib_epilogue.js registers as window.tbprofLibs.report.
  function libExports() {
    return {name: 'report', views: Object.keys(VIEWS), renderView: renderView,
            dom: {h: h, panel: panel, badge: badge, card: card, legend: legend},
            format: {ms: ms, pct: pct, bytes: bytes, num: num, shortName: shortName}};
  }

  // With "#selftest" in the URL (tests/report_html_chromium_test.sh), click
  // the sortable tables' headers (a numeric column, data-num-col, and the
  // first) and check the row order each time.
  function selfTest() {
    function column(table, i) {
      // Shortened names keep the full one in their title.
      return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[i].title || r.cells[i].textContent; });
    }
    function expectOrder(values, cmp, what) {
      for (var i = 1; i < values.length; i++) {
        if (cmp(values[i - 1], values[i]) > 0) throw new Error(what + ' not sorted at row ' + i);
      }
    }
    var tables = document.querySelectorAll('table.sortable');
    Array.prototype.forEach.call(tables, function (t) {
      var ths = t.tHead.rows[0].cells, count = +(t.getAttribute('data-num-col') || 2);
      var num = function (a, b) { return parseFloat(a) - parseFloat(b); };
      ths[count].click();
      expectOrder(column(t, count), function (a, b) { return num(b, a); }, 'count descending');
      ths[count].click();
      expectOrder(column(t, count), num, 'count ascending');
      if (ths[count].getAttribute('aria-sort') !== 'ascending') throw new Error('aria-sort not updated');
      ths[0].click();
      expectOrder(column(t, 0), function (a, b) { return a.localeCompare(b); }, 'name ascending');
    });
    return tables.length;
  }
