// tbprof's TensorBoard tab: the page module that TensorBoard loads in the
// plugin's iframe (base URL /data/plugin/tbprof/). It draws with the HTML
// report's own renderers (static/report_lib.js = report.js between
// page_prelude.js and lib_epilogue.js; diff_lib.js; distributed.js) and asks
// the plugin for one view at a time: data?run=&host=&view=. Every script,
// style and request stays on TensorBoard's origin.
//
// For tests, #render-status carries data-status (as the report page:
// "ok charts=N errors=0", or "error ..."), and #view carries data-state
// ("loading", "ready" or "error") with data-run, data-host and data-view,
// and data-ms: how long the view took from the click to drawn (request,
// parse and drawing).

const VIEWS = [
  ['overview', 'Overview'], ['operators', 'Operators'], ['kernels', 'GPU kernels'],
  ['memory', 'Memory'], ['modules', 'Modules'], ['distributed', 'Distributed'],
  ['gemm', 'GEMM efficiency'], ['diff', 'Diff'],
];
// Shown for views computed from an xplane.pb (the views file's source), not
// from the trace tbprof converted: runs of TensorFlow, JAX or an older tbprof.
const NOT_FOR_OTHERS = 'Run written by TensorFlow, JAX or an older tbprof: tbprof computed ' +
    'these views from its xplane.pb. Operators, modules, the host-side step breakdown and ' +
    'memory stacks need PyTorch (Kineto) events, so they are empty or device-only here.';

function el(tag, attrs, kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'cls') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of kids || []) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function load(tag, attrs) {
  return new Promise((resolve, reject) => {
    const e = el(tag, attrs);
    e.onload = resolve;
    e.onerror = () => reject(new Error('could not load ' + (attrs.src || attrs.href)));
    document.head.append(e);
  });
}

// GET a plugin route; resolves to the JSON body or rejects with the
// plugin's message and HTTP status.
async function getJson(route, params) {
  const url = route + '?' + new URLSearchParams(params).toString();
  const response = await fetch(url);
  let body = null;
  try { body = await response.json(); } catch (e) { body = null; }
  if (!response.ok || !body || body.error) {
    const message = body && body.error ? body.error : 'no answer (' + response.statusText + ')';
    throw new Error('HTTP ' + response.status + ': ' + message);
  }
  return body;
}

// The TensorBoard URL that opens xprof's trace viewer for run and host.
function traceViewerUrl(run, host) {
  const root = new URL('../../../', document.baseURI);
  const q = new URLSearchParams({run: run, tool: 'trace_viewer', tag: 'trace_viewer@', host: host});
  return root.origin + root.pathname + '?' + q.toString() + '#profile';
}

class Tab {
  constructor(runs) {
    this.runs = runs;
    this.state = {run: runs.length ? runs[0].run : '', host: '', view: 'overview'};
    this.state.host = runs.length ? runs[0].hosts[0] : '';
    this.seq = 0;
    this.build();
  }

  run() { return this.runs.find((r) => r.run === this.state.run); }

  build() {
    const options = (list) => list.map((v) => el('option', {value: v, text: v}));
    this.runSelect = el('select', {id: 'run', 'aria-label': 'Run', onchange: () => {
      this.state.run = this.runSelect.value;
      this.state.host = this.run().hosts[0];
      this.fillHosts();
      this.show();
    }}, options(this.runs.map((r) => r.run)));
    this.hostSelect = el('select', {id: 'host', 'aria-label': 'Host', onchange: () => {
      this.state.host = this.hostSelect.value;
      this.show();
    }});
    this.traceLink = el('a', {id: 'trace-link', target: '_top',
                              text: 'Trace viewer (xprof) \u2197'});
    this.tabs = el('nav', {cls: 'views', 'aria-label': 'Views'}, VIEWS.map(([key, label]) =>
      el('button', {type: 'button', 'data-view': key, text: label, onclick: () => {
        this.state.view = key;
        this.show();
      }})));
    this.note = el('div', {cls: 'note', id: 'note'});
    this.view = el('div', {id: 'view', 'data-state': 'loading'});
    document.body.append(
      el('header', {cls: 'bar'}, [el('span', {cls: 'brand', text: 'tbprof'}),
        el('label', {}, ['Run ', this.runSelect]), el('label', {}, ['Host ', this.hostSelect]),
        this.traceLink]),
      this.tabs, this.note, el('div', {id: 'app'}, [this.view]),
      el('div', {id: 'render-status', hidden: '', 'data-status': 'pending'}));
    this.fillHosts();
  }

  fillHosts() {
    const run = this.run();
    this.hostSelect.replaceChildren(...(run ? run.hosts : []).map((h) =>
      el('option', {value: h, text: h})));
    this.hostSelect.value = this.state.host;
  }

  setState(state, extra) {
    this.view.setAttribute('data-state', state);
    this.view.setAttribute('data-run', this.state.run);
    this.view.setAttribute('data-host', this.state.host);
    this.view.setAttribute('data-view', this.state.view);
    if (extra) document.getElementById('render-status').setAttribute('data-status', extra);
  }

  async show() {
    const seq = ++this.seq, {run, host, view} = this.state, t0 = performance.now();
    for (const b of this.tabs.children) {
      b.classList.toggle('active', b.getAttribute('data-view') === view);
    }
    this.traceLink.href = traceViewerUrl(run, host);
    this.hostSelect.disabled = view === 'distributed' || view === 'diff';
    this.view.replaceChildren(el('p', {cls: 'muted', text: 'Loading ' + view + '\u2026'}));
    this.setState('loading', 'pending');
    try {
      const root = el('div');
      const note = view === 'diff' ? await this.drawDiff(root, seq)
                                   : await this.drawView(root, seq);
      if (seq !== this.seq) return;
      this.note.replaceChildren(...note);
      this.view.replaceChildren(root);
      // The renderers have written #render-status by now.
      this.view.setAttribute('data-ms', (performance.now() - t0).toFixed(1));
      this.setState('ready');
    } catch (error) {
      if (seq !== this.seq) return;
      this.view.replaceChildren(el('div', {cls: 'error-box', role: 'alert', text: error.message}));
      this.note.replaceChildren();
      this.setState('error', 'error: ' + error.message);
    }
  }

  async drawView(root, seq) {
    const {run, host, view} = this.state;
    const answer = await getJson('data', {run: run, host: host, view: view});
    if (seq !== this.seq) return [];
    const meta = answer.meta, data = answer.data, lib = window.tbprofLibs.report;
    const note = [el('span', {}, [meta.source ? 'Source: ' + meta.source : '',
                                  meta.generator ? ' \u00b7 ' + meta.generator : ''])];
    if (meta.computedNow) {
      note.push(el('div', {cls: 'cached', text: 'Computed now by tbprof and cached as ' +
                                                meta.file + ' in the run directory.'}));
    }
    const fromXplane = /\.xplane\.pb$/.test(meta.source || '');
    if (fromXplane) note.push(el('div', {cls: 'muted', text: NOT_FOR_OTHERS}));
    if (view === 'distributed') {
      lib.renderView('hosts', data, root);
      // The host table's links (#host-<i> on the report page) open that host.
      root.addEventListener('click', (event) => {
        const a = event.target.closest('a[href^="#host-"]');
        const x = a && data.hosts[+a.getAttribute('href').slice(6)];
        if (!x) return;
        event.preventDefault();
        Object.assign(this.state, {host: x.host, view: 'overview'});
        this.hostSelect.value = x.host;
        this.show();
      });
      if (data.distributedHtml) {
        const section = el('div', {cls: 'distributed-html'});
        section.innerHTML = data.distributedHtml;  // tbprof's own C++-escaped HTML
        root.append(section);
        const d = section.querySelector('#distributed') || section;
        window.tbprofInitDistributed(d);
      } else {
        root.append(el('div', {cls: 'panel'}, [el('h3', {text: 'Distributed'}),
          el('p', {cls: 'muted', text: meta.hosts.length > 1 ?
              'No collectives (NCCL/RCCL kernels) in this run: not a distributed job.' :
              'One host in this run: the distributed view needs one trace per rank.'})]));
      }
      return note;
    }
    const count = data.deviceCount > 0 ? ' \u00d7 ' + data.deviceCount : '';
    const named = data.host && data.host !== host ? ' (in the profile: ' + data.host + ')' : '';
    root.append(el('h2', {cls: 'host-title'}, [host, el('span', {cls: 'muted', text: named})]),
                el('div', {cls: 'device', text: (data.deviceType || 'unknown device') + count}));
    // Why xprof's own overview (PROFILE) shows other numbers for a PyTorch run.
    if (view === 'overview' && meta.xprofNote && !fromXplane) {
      root.append(el('p', {cls: 'note xprof-note', text: meta.xprofNote}));
    }
    lib.renderView(view, data, root);
    if (view === 'memory') {
      for (const a of data.appendices || []) {
        const section = el('div', {cls: 'panel appendix'}, [el('h3', {text: a.title})]);
        const body = el('div');
        body.innerHTML = a.html;  // tbprof's own C++-escaped HTML
        section.append(body);
        root.append(section);
      }
    }
    return note;
  }

  async drawDiff(root, seq) {
    // Default: this run against the next one in the list.
    const names = this.runs.map((r) => r.run), at = names.indexOf(this.state.run);
    const base = this.diffBase || this.state.run;
    const next = this.diffNew || names[(at + 1) % names.length];
    const pick = (id, value, set) => {
      const s = el('select', {id: id, onchange: () => { set(s.value); this.show(); }},
                   names.map((n) => el('option', {value: n, text: n})));
      s.value = value;
      return s;
    };
    const form = el('div', {cls: 'panel diff-pick'}, [
      el('label', {}, ['Base ', pick('diff-base', base, (v) => { this.diffBase = v; })]),
      el('label', {}, [' New ', pick('diff-new', next, (v) => { this.diffNew = v; })]),
      el('span', {cls: 'muted', text: ' CI gate: --fail-if-slower 5 (%)'})]);
    root.append(form);
    const answer = await getJson('diff', {base: base, new: next, fail_if_slower: '5'});
    if (seq !== this.seq) return [];
    const d = answer.data, gate = d.gate;
    root.append(gate ? el('div', {cls: 'ci-verdict ' + (gate.tripped ? 'fail' : 'pass')}, [
      el('strong', {text: 'CI verdict: ' + (gate.tripped ? 'FAIL' : 'PASS')}), ' ', gate.message])
        : el('div', {cls: 'ci-verdict none'}, [el('strong', {text: 'CI verdict: none'}), ' ' +
              (answer.meta.gateError || 'no steps to compare')]));
    window.tbprofLibs.diff.renderDiff(d, root);
    return [el('span', {text: 'tbprof diff --json --fail-if-slower 5 ' + base + ' ' + next})];
  }
}

export async function render() {
  document.body.className = 'tbprof-tab';
  for (const css of ['report.css', 'diff.css', 'distributed.css', 'tab.css']) {
    await load('link', {rel: 'stylesheet', href: 'static/' + css});
  }
  for (const js of ['report_lib.js', 'diff_lib.js', 'distributed.js']) {
    await load('script', {src: 'static/' + js});
  }
  let runs;
  try {
    runs = (await getJson('runs', {})).runs;
  } catch (error) {
    document.body.append(el('div', {cls: 'error-box', role: 'alert', text: error.message}));
    return;
  }
  if (!runs.length) {
    document.body.append(el('p', {id: 'view', 'data-state': 'error', text:
        'No profile runs (plugins/profile/<run>/<host>.xplane.pb) under the logdir yet.'}));
    return;
  }
  new Tab(runs).show();
}
