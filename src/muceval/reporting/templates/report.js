document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('thead th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('thead th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var key = function (row) {
        var cell = row.cells[col];
        var v = cell.getAttribute('data-sort');
        if (v === null) { v = cell.textContent.trim(); }
        var n = parseFloat(v);
        return isNaN(n) ? v.toLowerCase() : n;
      };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
// A <select data-choose="X"> shows the one element whose data-X equals its value.
document.querySelectorAll('select[data-choose]').forEach(function (select) {
  var name = select.getAttribute('data-choose');
  select.addEventListener('change', function () {
    document.querySelectorAll('[data-' + name + ']').forEach(function (el) {
      el.hidden = el.getAttribute('data-' + name) !== select.value;
    });
  });
});
// Lets a test see, in the rendered DOM, that the script ran to the end.
document.documentElement.setAttribute('data-script', 'ready');
