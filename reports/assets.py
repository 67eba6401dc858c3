"""The report's inline style sheet and filter script (no external assets: reports work offline).

Colours follow KIP-77's tables: a red background marks outputs that are missing (Kafka emits them, the
candidate does not), a green background outputs that are unexpected (only the candidate emits them); every
mark also has a sign (minus, plus, tilde), so colour is never the only carrier. In version comparisons a
difference is information, not an alarm: "differs" is a neutral blue there.

The script only shows and hides rows of ``table#rows`` by the controls marked ``data-filter`` (and by a
``#filter:name=value,...`` fragment, so that summary links open a filtered view); it reads attributes and
text, never builds HTML, so data in the page cannot become markup.
"""

from __future__ import annotations

__all__ = ["FILTER_SCRIPT", "MISSING_BACKGROUND", "STYLE", "UNEXPECTED_BACKGROUND"]

MISSING_BACKGROUND = "#ffd7d5"
"""Background of a missing (removed) output: red."""

UNEXPECTED_BACKGROUND = "#ccffd8"
"""Background of an unexpected (added) output: green."""

STYLE = f"""
body {{ font: 14px/1.45 system-ui, sans-serif; margin: 0 1.5em 2em; color: #1f2328; max-width: 110em; }}
h1 {{ font-size: 1.5em; margin: .6em 0 .3em; }} h2 {{ font-size: 1.2em; margin: 1.4em 0 .4em; }}
h3 {{ font-size: 1.05em; margin: 1em 0 .3em; }} h4 {{ margin: .8em 0 .2em; }}
table {{ border-collapse: collapse; margin: .4em 0 1em; }}
th, td {{ border: 1px solid #d0d7de; padding: 2px 6px; text-align: left; vertical-align: top; }}
th {{ background: #f6f8fa; position: sticky; top: 0; }}
code, pre, .diff td, .mono {{ font-family: ui-monospace, monospace; font-size: 13px; }}
pre {{ background: #f6f8fa; padding: .5em; overflow-x: auto; white-space: pre-wrap; }}
.muted {{ color: #57606a; }}
.banner {{ background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: .4em 1.5em; margin: 0 -1.5em; }}
.incomplete {{ background: #fff8c5; border: 2px solid #bf8700; padding: .6em 1em; margin: .8em 0; }}
.st {{ display: inline-block; padding: 0 .4em; border-radius: 3px; white-space: nowrap; }}
.st a {{ color: inherit; }}
.st-pass {{ background: #dafbe1; color: #116329; }}
.st-fail, .st-error {{ background: #cf222e; color: #fff; }}
.st-declared {{ background: #ddf4ff; color: #0550ae; }}
.st-unexpected-pass {{ background: #8250df; color: #fff; }}
.st-unknown {{ background: #fff8c5; color: #7d4e00; }}
.st-not-claimed, .st-not-applicable, .st-same {{ background: #eaeef2; color: #57606a; }}
.st-improved {{ background: #dafbe1; color: #116329; }}
.st-regressed {{ background: #cf222e; color: #fff; }}
.st-changed, .st-added, .st-removed {{ background: #fff8c5; color: #7d4e00; }}
.st-differs {{ background: #ddf4ff; color: #0550ae; }}
.kind {{ font-size: 12px; color: #57606a; }}
td.st-fail .kind, td.st-error .kind {{ color: #fff; }}
.summary td.n {{ text-align: right; }} .summary td.zero, .zero {{ color: #8c959f; }}
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
td.best {{ background: #dafbe1; font-weight: bold; }} td.close {{ background: #fff8c5; font-weight: bold; }}
td.na, .na {{ color: #8c959f; }}
span.best {{ background: #dafbe1; font-weight: bold; padding: 0 .3em; }}
span.close {{ background: #fff8c5; font-weight: bold; padding: 0 .3em; }}
.best-text {{ color: #116329; }} .close-text {{ color: #7d4e00; }}
.verdict-line {{ font-size: 1.15em; margin: .4em 0; }}
.wide {{ overflow-x: auto; }}
.matrix td {{ white-space: nowrap; }}
.matrix td:first-child {{ white-space: normal; overflow-wrap: anywhere; max-width: 36em; }}
.summary td.n a {{ display: block; }}
.why {{ border-left: 4px solid #0969da; padding: .2em .8em; background: #f6f8fa; }}
.state {{ display: flex; flex-wrap: wrap; gap: 1.5em; }} .state table {{ margin-top: .2em; }}
details > summary {{ cursor: pointer; }}
svg.timeline {{ border: 1px solid #d0d7de; background: #fff; max-width: 100%; height: auto; }}
svg text {{ font: 11px ui-monospace, monospace; fill: #1f2328; }}
svg .axis {{ stroke: #8c959f; stroke-width: 1; }} svg .grid {{ stroke: #eaeef2; stroke-width: 1; }}
svg .lane {{ fill: #f6f8fa; }} svg .lane-label {{ fill: #57606a; }}
svg .window {{ fill: #ddf4ff; stroke: #54aeff; stroke-width: .5; }}
svg .grace {{ fill: #fff8c5; stroke: #d4a72c; stroke-width: .5; }}
svg .clipped {{ fill: none; stroke: #54aeff; stroke-width: 2; }}
svg .rec-left {{ fill: #0969da; }} svg .rec-right {{ fill: #8250df; }}
svg .rec-null {{ fill: #fff; stroke: #57606a; stroke-width: 1.5; }}
svg .first {{ fill: none; stroke: #cf222e; stroke-width: 2.5; }}
svg .mb-boundary {{ stroke: #8250df; stroke-width: 1.5; stroke-dasharray: 4 3; }}
svg .mb-label {{ fill: #8250df; font-size: 10px; }}
.diff tr.mb-boundary td {{ border-top: 2px dashed #8250df; color: #8250df; font-size: 90%; }}
svg .out-same {{ fill: #57606a; }} svg .out-missing {{ fill: #cf222e; }}
svg .out-unexpected {{ fill: #1a7f37; }}
svg .emit {{ stroke: #8c959f; stroke-width: .8; stroke-dasharray: 2 2; fill: none; }}
svg .stream-time {{ stroke: #bf8700; stroke-width: 1.5; fill: none; }}
svg .version {{ fill: #ddf4ff; stroke: #0969da; stroke-width: .5; }}
svg .tombstone {{ fill: #57606a; }}
svg .bar {{ fill: #8c959f; }}
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
  function fromFragment() {
    var hash = decodeURIComponent(location.hash || '');
    if (hash.indexOf('#filter:') !== 0) { return; }
    var pairs = hash.slice(8).split(',');
    selects.forEach(function (s) { s.value = ''; });
    pairs.forEach(function (pair) {
      var at = pair.indexOf('=');
      var name = pair.slice(0, at);
      selects.forEach(function (s) {
        if (s.getAttribute('data-filter') === name) { s.value = pair.slice(at + 1); }
      });
    });
    apply();
  }
  if (query) { query.addEventListener('input', apply); }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  window.addEventListener('hashchange', fromFragment);
  fromFragment();
  apply();
})();
"""
