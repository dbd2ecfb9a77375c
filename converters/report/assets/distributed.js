
// Makes the tables of the distributed section sortable. The report page runs
// this script inline after the section; tbprof's TensorBoard tab loads it
// from a URL before the section exists and calls
// window.tbprofInitDistributed(root) once it has put the section in.
(function () {
  function init(root) {
    Array.prototype.forEach.call(root.querySelectorAll('table.sortable'), function (t) {
      var ths = t.tHead.rows[0].cells, sorted = -1, desc = false;
      Array.prototype.forEach.call(ths, function (th, i) {
        th.addEventListener('click', function () {
          var num = th.classList.contains('num');
          if (sorted === i) desc = !desc; else { sorted = i; desc = num; }
          Array.prototype.forEach.call(ths, function (x) { x.setAttribute('aria-sort', 'none'); });
          th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
          var body = t.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          rows.sort(function (a, b) {
            var x = a.cells[i].getAttribute('data-v'), y = b.cells[i].getAttribute('data-v');
            var c = num ? (+x) - (+y) : String(x).localeCompare(String(y));
            return desc ? -c : c;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        });
      });
    });
  }
  window.tbprofInitDistributed = init;
  var root = document.getElementById('distributed');
  if (root) init(root);
})();
