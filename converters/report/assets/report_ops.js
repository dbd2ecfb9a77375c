  // The report page's operator, module and GEMM-efficiency panels
  // (operatorsPanel, modulesPanel, gemmPanel), in the same closure as
  // report.js: the pages put page_prelude.js, report.js, this file and
  // page_epilogue.js (or lib_epilogue.js) together, in that order.
  // ---- Operators, modules, GEMM efficiency.
  function notesList(notes) {
    if (!notes || !notes.length) return null;
    return h('ul', {cls: 'recs'}, notes.map(function (n) { return h('li', {cls: 'muted'}, [n]); }));
  }
  function tcText(v) { return v < 0 ? '\u2013' : fx(v, 0); }
  function flops(v) {
    var units = ['', 'k', 'M', 'G', 'T', 'P', 'E'], i = 0;
    v = +v || 0;
    while (Math.abs(v) >= 999.5 && i < 6) { v /= 1000; i++; }
    return String(+v.toPrecision(3)) + ' ' + units[i] + 'FLOP';
  }

  // Top ops: device self time (green: on Tensor Cores) and host self time.
  function opChart(ops) {
    var rows = ops.rows.slice(0, 12);
    if (!rows.length) return null;
    var max = 0;
    rows.forEach(function (r) { max = Math.max(max, r.devSelfMs, r.hostSelfMs); });
    if (!(max > 0)) return null;
    var rowH = 30, p = plot(1000, rows.length * rowH + 12, [0, 6, 0, 6], 'Top ops: device and host self time');
    var L = 330, R = 740;
    rows.forEach(function (r, i) {
      var y = 6 + i * rowH, wTc = r.tcSelfMs / max * (R - L), wDev = r.devSelfMs / max * (R - L);
      var wHost = r.hostSelfMs / max * (R - L);
      p.svg.appendChild(s('g', {cls: 'bar'}, [
        s('title', {text: r.name + '\n' + r.calls + ' calls\ndevice self ' + ms(r.devSelfMs) + ' ms (total ' +
                          ms(r.devTotalMs) + ')\nhost self ' + ms(r.hostSelfMs) + ' ms (total ' + ms(r.hostTotalMs) + ')' +
                          (r.tcPct >= 0 ? '\nTensor Cores: ' + fx(r.tcPct, 0) + '% of device self time' : '')}),
        s('text', {x: L - 8, y: y + 15, 'text-anchor': 'end', text: shortName(r.name, 42)}),
        s('rect', {x: L, y: y + 3, width: Math.max(wDev - wTc, 0), height: 13, fill: '#4e79a7'}),
        s('rect', {x: L + Math.max(wDev - wTc, 0), y: y + 3, width: Math.max(wTc, 0), height: 13, fill: '#59a14f'}),
        s('rect', {x: L, y: y + 18, width: Math.max(wHost, 0.5), height: 6, fill: '#f28e2b'}),
        s('text', {x: L + Math.max(wDev, wHost) + 6, y: y + 15, text: ms(r.devSelfMs) + ' ms device \u00b7 ' + ms(r.hostSelfMs) + ' ms host'})
      ]));
    });
    return done(p.svg);
  }

  function stackList(ops) {
    var withStacks = ops.rows.filter(function (r) { return r.stacks.length; }).slice(0, 10);
    if (!withStacks.length) return null;
    return h('details', {}, [h('summary', {}, ['Call stacks of the top ops (innermost frame first)'])].concat(
        withStacks.map(function (r) {
          return h('div', {}, [h('h4', {}, [r.name]), table([
            {label: 'Device ms', num: true, get: function (c) { return ms(c.devMs); }},
            {label: 'Host ms', num: true, get: function (c) { return ms(c.hostMs); }},
            {label: 'Calls', num: true, get: function (c) { return String(c.calls); }},
            {label: 'Stack', get: function (c) { return h('span', {cls: 'stack'}, [c.stack.split(';').join(' \u2190 ')]); }}],
            r.stacks, 'compact')]);
        })));
  }

  var OPCOLS = [
    {key: 'name', label: 'Op', disp: function (v) { return v.length > 60 ? v.slice(0, 59) + '\u2026' : v; }},
    {key: 'calls', label: 'Calls', fmt: String},
    {key: 'devSelfMs', label: 'Device self ms', fmt: ms},
    {key: 'devTotalMs', label: 'Device total ms', fmt: ms},
    {key: 'hostSelfMs', label: 'Host self ms', fmt: ms},
    {key: 'hostTotalMs', label: 'Host total ms', fmt: ms},
    {key: 'tcPct', label: 'TC %', fmt: tcText, bar: function (v) { return v; }}
  ];

  function operatorsPanel(x) {
    var o = x.ops;
    if (o.noData) return panel(['Operators'], [h('p', {cls: 'muted'}, [o.noData])]);
    var share = o.deviceMs > 0 ? ' (' + pct(100 * o.attributedMs / o.deviceMs) + ')' : '';
    var sub = o.opCount + ' ops, ' + o.hostOps + ' calls; device time ' + ms(o.deviceMs) + ' ms, launched by ops ' +
              ms(o.attributedMs) + ' ms' + share;
    var body = [opChart(o), legend([{color: '#4e79a7', label: 'device self (CUDA cores)'},
                                    {color: '#59a14f', label: 'device self (Tensor Cores)'},
                                    {color: '#f28e2b', label: 'host self'}])];
    if (o.unattributed.length) {
      body.push(h('p', {}, ['Device time no op launched:']));
      body.push(h('ul', {cls: 'recs'}, o.unattributed.map(function (u) {
        var top = u.kernels.length ? ' Longest: ' + shortName(u.kernels[0].name, 60) + ' (' + ms(u.kernels[0].ms) + ' ms).' : '';
        return h('li', {}, [u.explanation + '.' + top]);
      })));
    }
    body.push(h('p', {cls: 'muted'}, ['Device self: kernels and copies an op launched itself; total: with the ops it called. Host self: its time minus the ops it called. Click a column header to sort.']));
    body.push(sortableTable(OPCOLS, o.rows, 'devSelfMs', 1, 'ops'));
    if (o.shapes.length) {
      var shapeCols = [OPCOLS[0], {key: 'shapes', label: 'Input shapes', disp: function (v) { return v.length > 48 ? v.slice(0, 47) + '\u2026' : v; }},
                       {key: 'types', label: 'Input types', disp: function (v) { return v.length > 40 ? v.slice(0, 39) + '\u2026' : v; }}].concat(OPCOLS.slice(1));
      body.push(h('details', {}, [h('summary', {}, ['By input shape (' + plural(o.shapes.length, 'row') + ')']),
                                  sortableTable(shapeCols, o.shapes, 'devSelfMs', 3, 'shapes')]));
    }
    body.push(stackList(o));
    body.push(notesList(o.notes));
    return panel(['Operators ', h('span', {cls: 'muted'}, [sub])], body);
  }

  // Icicle of the module tree: width = device total time (host time when
  // no module launched device work), one row per depth.
  function moduleIcicle(m) {
    var nodes = m.nodes, kids = nodes.map(function () { return []; }), roots = [];
    nodes.forEach(function (n, i) { if (n.parent >= 0 && n.parent < nodes.length) kids[n.parent].push(i); else roots.push(i); });
    var useDev = roots.some(function (i) { return nodes[i].devTotalMs > 0; });
    function val(i) { return useDev ? nodes[i].devTotalMs : nodes[i].hostMs; }
    var total = 0;
    roots.forEach(function (i) { total += val(i); });
    if (!(total > 0)) return null;
    var depth = 0;
    nodes.forEach(function (n) { depth = Math.max(depth, n.depth); });
    depth = Math.min(depth, 7);
    var rowH = 24, W = 1000, p = plot(W, (depth + 1) * rowH + 4, [0, 2, 0, 2], 'Module tree by ' + (useDev ? 'device' : 'host') + ' time');
    var palette = ['#4e79a7', '#76b7b2', '#59a14f', '#edc948', '#f28e2b', '#e15759', '#b07aa1', '#9c755f'];
    function draw(i, x0, x1) {
      var n = nodes[i], w = x1 - x0;
      if (n.depth > depth || w < 0.5) return;
      var y = 2 + n.depth * rowH;
      var g = s('g', {cls: 'bar'}, [s('title', {text: n.path + '\n' + n.calls + ' calls\ndevice ' + ms(n.devTotalMs) +
          ' ms (self ' + ms(n.devSelfMs) + ')\nhost ' + ms(n.hostMs) + ' ms (self ' + ms(n.hostSelfMs) + ')'}),
          s('rect', {x: x0, y: y, width: Math.max(w - 1, 0.5), height: rowH - 2, fill: palette[n.depth % palette.length], rx: 2})]);
      var chars = Math.floor((w - 8) / 7);
      if (chars >= 4) {
        g.appendChild(s('text', {x: x0 + 4, y: y + 15, style: 'fill:#fff', text: n.name.length > chars ? n.name.slice(0, chars - 1) + '\u2026' : n.name}));
      }
      p.svg.appendChild(g);
      var v = val(i), x = x0;
      if (!(v > 0)) return;
      kids[i].forEach(function (k) {
        var kw = Math.min(val(k) / v * w, x1 - x);
        draw(k, x, x + kw);
        x += kw;
      });
    }
    var x = 0;
    roots.forEach(function (i) { var w = val(i) / total * W; draw(i, x, x + w); x += w; });
    return done(p.svg);
  }

  function modulesPanel(x) {
    var m = x.modules;
    if (m.noData) return panel(['Modules'], [h('p', {cls: 'muted'}, [m.noData])]);
    var sub = plural(m.count, 'module path') + '; device time outside modules ' + ms(m.outsideMs) + ' ms';
    var cols = [
      {key: 'path', label: 'Module path', disp: function (v) { return v.length > 70 ? '\u2026' + v.slice(v.length - 69) : v; }},
      {key: 'calls', label: 'Calls', fmt: String},
      {key: 'devTotalMs', label: 'Device total ms', fmt: ms},
      {key: 'devSelfMs', label: 'Device self ms', fmt: ms},
      {key: 'hostMs', label: 'Host ms', fmt: ms},
      {key: 'hostSelfMs', label: 'Host self ms', fmt: ms},
      {key: 'ops', label: 'Ops', fmt: String}];
    return panel(['Modules ', h('span', {cls: 'muted'}, [sub])], [
      moduleIcicle(m),
      h('p', {cls: 'muted'}, ['Each bar is a module, nested under its parent, as wide as its time; hover for numbers.']),
      sortableTable(cols, m.nodes, 'devTotalMs', 1, 'modules'), notesList(m.notes)]);
  }

  // Fraction of the GPU's peak, one bar per GEMM shape.
  function gemmChart(rows) {
    rows = rows.filter(function (r) { return r.peakPct >= 0; }).slice(0, 10);
    if (!rows.length) return null;
    var rowH = 26, p = plot(1000, rows.length * rowH + 30, [0, 6, 0, 24], 'GEMM and convolution efficiency');
    var L = 430, R = 900;
    [0, 25, 50, 75, 100].forEach(function (t) {
      var gx = L + t / 100 * (R - L);
      p.svg.appendChild(s('line', {x1: gx, x2: gx, y1: 4, y2: p.h - 22, cls: 'grid'}));
      p.svg.appendChild(s('text', {x: gx, y: p.h - 8, 'text-anchor': 'middle', text: t + '%'}));
    });
    rows.forEach(function (r, i) {
      var y = 6 + i * rowH, w = Math.max(1, Math.min(100, r.peakPct) / 100 * (R - L));
      var color = r.peakPct < 30 ? '#e15759' : r.peakPct < 60 ? '#f28e2b' : '#59a14f';
      p.svg.appendChild(s('g', {cls: 'bar'}, [
        s('title', {text: r.name + ' ' + r.shapes + ' ' + r.dtype + '\n' + r.calls + ' calls, ' + ms(r.ms) + ' ms (' + pct(r.timePct) +
                          ' of device time)\n' + num(r.tflops) + ' TFLOP/s of ' + num(r.peak) + ' (' + r.peakKind + ')'}),
        s('text', {x: L - 8, y: y + 17, 'text-anchor': 'end', text: shortName(r.name + ' ' + r.shapes, 58)}),
        s('rect', {x: L, y: y + 4, width: w, height: rowH - 8, rx: 2, fill: color}),
        s('text', {x: L + w + 6, y: y + 17, text: fx(r.peakPct, 1) + '%'})
      ]));
    });
    return done(p.svg);
  }

  function gemmPanel(x) {
    var g = x.gemm;
    if (g.noData) return panel(['GEMM efficiency'], [h('p', {cls: 'muted'}, [g.noData])]);
    var rate = g.deviceMs > 0 ? g.totalFlops / (g.deviceMs * 1e9) : 0;
    var sub = flops(g.totalFlops) + ' in ' + ms(g.deviceMs) + ' ms = ' + num(rate) + ' TFLOP/s';
    var body = g.devices.map(function (d) {
      return h('p', {}, ['GPU ' + d.ordinal + ' ' + d.name + ' (' + d.arch + '): ' + d.sms + ' SMs \u00d7 ' + fx(d.clockMhz, 0) +
          ' MHz \u2192 peak ' + fx(d.fp16, 0) + ' TFLOP/s fp16/bf16, ' + fx(d.tf32, 0) + ' tf32, ' + fx(d.fp32, 1) + ' fp32. ',
          h('span', {cls: 'muted'}, ['Clock: ' + d.clockSource + '. Rates: ' + d.source + '.'])]);
    });
    var worst = g.worst.length ? g.worst : g.rows;
    body.push(h('h4', {}, [g.worst.length ? 'Least efficient expensive GEMMs (at least 1% of device time)' : 'GEMMs by device time']));
    body.push(gemmChart(worst));
    body.push(sortableTable([
      {key: 'name', label: 'Op', disp: function (v) { return v; }},
      {key: 'calls', label: 'Calls', fmt: String},
      {key: 'shapes', label: 'Input shapes', disp: function (v) { return v.length > 48 ? v.slice(0, 47) + '\u2026' : v; }},
      {key: 'dtype', label: 'Type', str: true},
      {key: 'gflopPerCall', label: 'GFLOP/call', fmt: num},
      {key: 'tflops', label: 'TFLOP/s', fmt: function (v) { return fx(v, 2); }},
      {key: 'peakPct', label: '% of peak', fmt: function (v) { return v < 0 ? '\u2013' : fx(v, 1); }, bar: function (v) { return v; }},
      {key: 'ms', label: 'Device ms', fmt: ms},
      {key: 'timePct', label: '% of device time', fmt: pct}], g.rows, 'ms', 1, 'gemm'));
    body.push(notesList(g.notes));
    return panel(['GEMM efficiency ', h('span', {cls: 'muted'}, [sub])], body);
  }
