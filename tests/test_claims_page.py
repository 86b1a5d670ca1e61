"""The claims page in a real browser: headless Chromium at 1400 px renders the pipeline's
claims.html with a probe script appended; the probe measures the page, sorts a column, and
writes what it found into the DOM, which Chromium dumps.

Chromium comes from Debian's packages (``.ci/run`` installs it); elsewhere the test is skipped
with a message saying how to enable it.
"""

from __future__ import annotations

import pytest
from conftest import browser_probe

PROBE = """
<script>
window.addEventListener('load', () => {
  const out = {};
  const doc = document.documentElement;
  out.scrollWidth = doc.scrollWidth; out.clientWidth = doc.clientWidth;
  const head = [...document.querySelectorAll('#results thead th')].map(th => th.textContent);
  out.columns = head;
  const col = head.indexOf('verdict');
  const cells = () => [...document.querySelectorAll('#results tbody tr')]
      .map(r => r.cells[col].textContent);
  sortBy(col);
  const sorted = cells();
  out.sorted = sorted.every((v, i) => i === 0 || sorted[i - 1].localeCompare(v) <= 0);
  sortBy(col);
  const back = cells();
  out.reversed = back.every((v, i) => i === 0 || back[i - 1].localeCompare(v) >= 0);
  const line = head.indexOf('line');
  const place = t => t.split(':').map(Number);
  sortBy(line);
  const lines = [...document.querySelectorAll('#results tbody tr')]
      .map(r => place(r.cells[line].textContent));
  out.linesNumeric = lines.every((v, i) => i === 0 || lines[i - 1][0] < v[0]
      || (lines[i - 1][0] === v[0] && (lines[i - 1][1] || 0) <= (v[1] || 0)));
  const hover = document.querySelector('#results td.cube span[title]');
  out.hover = hover ? hover.getAttribute('title') : null;
  const wide = ['why', 'reading'].map(c => head.indexOf(c));
  const row = document.querySelector('#results tbody tr');
  out.cellsInside = wide.every(i => row.cells[i].getBoundingClientRect().right <= innerWidth);
  const pre = document.createElement('pre'); pre.id = 'probe';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});
</script>
"""


@pytest.mark.pipeline
def test_claims_page_sorts_and_fits_1400_px(pipeline, tmp_path):
    page = tmp_path / "claims.html"
    page.write_text(
        (pipeline / "results" / "claims.html").read_text(encoding="utf-8") + PROBE,
        encoding="utf-8",
    )
    out = browser_probe(page, tmp_path)
    assert out["columns"][11:13] == ["evidence", "reading"]
    assert out["scrollWidth"] <= out["clientWidth"], f"scrolls sideways: {out}"
    assert out["cellsInside"], "why or reading runs past the window"
    assert out["sorted"] and out["reversed"], "clicking a heading does not sort"
    # line:char sorts as numbers (1:327 before 1:3256, 9 before 10), not as text
    assert out["linesNumeric"], "the line column sorts as text"
    assert out["hover"] and ":" in out["hover"], "no long_name on hover over the cube"
