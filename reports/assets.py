"""The report's inline style sheet and filter script (no external assets: reports work offline).

Colours follow KIP-77's tables: a red background marks output rows that are missing (Kafka emits them,
the candidate or the newer version does not), a green background rows that are added (unexpected).
The script only filters the rows of ``table#rows`` by the controls marked ``data-filter``; it reads
attributes and text, never builds HTML, so data in the page cannot become markup.
"""

from __future__ import annotations

__all__ = ["FILTER_SCRIPT", "MISSING_BACKGROUND", "STYLE", "UNEXPECTED_BACKGROUND"]

MISSING_BACKGROUND = "#ffd7d5"
"""Background of a missing (removed) output row: red."""

UNEXPECTED_BACKGROUND = "#ccffd8"
"""Background of an unexpected (added) output row: green."""

STYLE = f"""
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1f2328; }}
h1 {{ font-size: 1.5em; margin: 0 0 .3em; }} h2 {{ font-size: 1.2em; margin: 1.4em 0 .4em; }}
h3 {{ font-size: 1em; margin: 1em 0 .3em; }}
table {{ border-collapse: collapse; margin: .4em 0 1em; }}
th, td {{ border: 1px solid #d0d7de; padding: 2px 6px; text-align: left; vertical-align: top; }}
th {{ background: #f6f8fa; position: sticky; top: 0; }}
code, pre, .diff td, .mono {{ font-family: ui-monospace, monospace; font-size: 13px; }}
pre {{ background: #f6f8fa; padding: .5em; overflow-x: auto; white-space: pre-wrap; }}
.muted {{ color: #57606a; }}
.st {{ display: inline-block; padding: 0 .4em; border-radius: 3px; white-space: nowrap; }}
.st a {{ color: inherit; }}
.st-pass {{ background: #dafbe1; color: #116329; }}
.st-fail {{ background: #cf222e; color: #fff; }}
.st-declared {{ background: #ddf4ff; color: #0550ae; }}
.st-unexpected-pass {{ background: #8250df; color: #fff; }}
.st-unknown {{ background: #fff8c5; color: #7d4e00; }}
.st-not-claimed, .st-not-applicable {{ background: #eaeef2; color: #57606a; }}
.st-improved {{ background: #dafbe1; color: #116329; }}
.st-regressed {{ background: #cf222e; color: #fff; }}
.st-changed, .st-added, .st-removed {{ background: #fff8c5; color: #7d4e00; }}
.diff td.m-missing {{ background: {MISSING_BACKGROUND}; }}
.diff td.m-unexpected {{ background: {UNEXPECTED_BACKGROUND}; }}
.diff td.m-order {{ background: #fff1c2; }}
.diff tr.first td {{ border-top: 2px solid #cf222e; }}
.diff tr.first td.idx {{ font-weight: bold; color: #cf222e; }}
.diff tr.cont td.in {{ border-top-color: transparent; }}
.legend span {{ padding: 0 .4em; margin-right: .6em; }}
.legend .m-missing {{ background: {MISSING_BACKGROUND}; }}
.legend .m-unexpected {{ background: {UNEXPECTED_BACKGROUND}; }}
.legend .m-order {{ background: #fff1c2; }}
.controls {{ margin: .5em 0; }} .controls input, .controls select {{ margin-right: .6em; }}
td.best {{ background: #dafbe1; font-weight: bold; }}
td.na {{ color: #8c959f; }}
"""

FILTER_SCRIPT = """
(function () {
  var table = document.getElementById('rows');
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var data = rows.map(function (row) {
    return {row: row, text: row.cells[0].textContent.toLowerCase()};
  });
  var query = document.getElementById('q');
  var selects = Array.prototype.slice.call(document.querySelectorAll('select[data-filter]'));
  var shown = document.getElementById('shown');
  function apply() {
    var needle = query ? query.value.trim().toLowerCase() : '';
    var wanted = selects.map(function (s) { return [s.getAttribute('data-filter'), s.value]; });
    var count = 0;
    for (var i = 0; i < data.length; i++) {
      var item = data[i];
      var show = !needle || item.text.indexOf(needle) >= 0;
      for (var j = 0; show && j < wanted.length; j++) {
        if (wanted[j][1]) {
          var tokens = ' ' + (item.row.getAttribute('data-' + wanted[j][0]) || '') + ' ';
          show = tokens.indexOf(' ' + wanted[j][1] + ' ') >= 0;
        }
      }
      if (item.row.hidden === show) { item.row.hidden = !show; }
      if (show) { count++; }
    }
    if (shown) { shown.textContent = count + ' of ' + data.length + ' rows shown'; }
  }
  if (query) { query.addEventListener('input', apply); }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  apply();
})();
"""
