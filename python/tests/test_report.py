"""sonde-report: the HTML report and --compare, from records of every kind; and the page as a
browser shows it (headless Chromium, when installed)."""

import base64
import json
import re
import shutil
import subprocess

import pytest
from conftest import RUN_ID, end, header, jsonl, measurement

from sonde import report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def profile_records(run_id=RUN_ID):
    tasks = {"type": "profile", "run_id": run_id, "workload": "mib", "phase": "write",
             "part": "tasks", "tasks": 2, "phase_start": [0.0, 0.001], "calls": [3, 2],
             "clock_error": [0.0, 1e-6]}
    calls = {"type": "profile", "run_id": run_id, "workload": "mib", "phase": "write",
             "part": "calls", "first_call": 1,
             "start": [[0.0, 0.001], [0.1, 0.12], [0.2, None]],
             "end": [[0.1, 0.12], [0.2, 0.25], [0.3, None]]}
    return [tasks, calls]


def coll_records(run_id="20261122T060001Z-9"):
    recs = [header(run_id=run_id, workload="coll")]
    for op in ("Bcast", "Allreduce"):
        for size in (8, 64, 512):
            m = measurement(run_id=run_id, workload="coll", phase=op, seconds=1e-5)
            m.update(bytes=0, bandwidth_mib_s=None)
            m["params"] = {"operation": op, "size": size, "comm": "MPI_COMM_WORLD"}
            m["extra"] = {"avg_us": 2.0 + size / 64, "min_us": 1.0, "max_us": 9.0}
            recs.append(m)
    return recs + [end(run_id=run_id, workload="coll", measurements=6)]


def btio_records(ranks, bw, run_id):
    h = header(run_id=run_id, workload="btio")
    h["ranks"] = ranks
    m = measurement(run_id=run_id, workload="btio", phase="write", seconds=8 / bw)
    m["params"] = {"method": 0, "grid": "64x64x64"}
    return [h, m, end(run_id=run_id, workload="btio", measurements=1)]


@pytest.fixture
def mixed(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    io = [header(), measurement(), measurement(iteration=1, seconds=0.25),
          measurement(phase="read", seconds=0.25), end(measurements=3)]
    mib = [header(run_id="20261122T060002Z-7", workload="mib")]
    mib += profile_records(run_id="20261122T060002Z-7")
    mib += [end(run_id="20261122T060002Z-7", workload="mib", measurements=0)]
    (d / "ior.jsonl").write_text(jsonl(io))
    (d / "mib.jsonl").write_text(jsonl(mib))
    (d / "coll.jsonl").write_text(jsonl(coll_records()))
    (d / "btio.jsonl").write_text(jsonl(btio_records(1, 10.0, "20261122T060003Z-1") +
                                        btio_records(4, 30.0, "20261122T060004Z-1")))
    (d / "ior-table.csv").write_text("api,RDbwmax,RDbwmean\nPOSIX,32.0,21.3\n")
    (d / "verdicts.json").write_text(json.dumps({"000-x": {"status": "not-compliant", "rules": [
        {"rule": "min_runtime_60s", "ok": False, "reason": "ran 1.0 s"}]}}))
    return d


def images(html):
    return re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([^"]+)"', html)


def test_report_of_a_mixed_run_dir(mixed, capsys):
    assert report.main([str(mixed)]) == 0
    out = mixed / "report.html"
    html = out.read_text()
    figs = images(html)
    titles = [t for t, _ in figs]
    assert any(t.startswith("Bandwidth: ior") for t in titles)
    assert "Per-call timeline, write: mib 2r 20261122T060002Z-7" in titles
    assert any(t.startswith("Call latency: ior") for t in titles)
    assert any(t.startswith("Collective latency: coll") for t in titles)
    assert "BTIO strong scaling" in titles
    for _, b64 in figs:
        assert base64.b64decode(b64).startswith(PNG_MAGIC)
    # The PNGs beside the page are the same images.
    pngs = sorted((mixed / "report-figures").glob("*.png"))
    assert len(pngs) == len(figs)
    assert "http://" not in html and "https://" not in html  # self-contained
    # Tables: the summary's figures are the records' own.
    summary = html.split('id="summary"')[1].split("</table>")[0]
    assert "<td class=\"text\">ior</td>" in summary
    assert "<td class=\"\">24.0</td>" in summary  # mean of 16 and 32 MiB/s (iterations 0, 1)
    assert "IOR results (run)" in html and "min_runtime_60s: ran 1.0 s" in html
    assert "Run environment" in html
    assert "figures" in capsys.readouterr().out


def test_compare_ratios(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(jsonl([header(), measurement(seconds=0.5), end(measurements=1)] +
                       coll_records()))
    faster = measurement(seconds=0.25)
    slower = coll_records()
    for r in slower:
        if r["type"] == "measurement":
            r["extra"]["avg_us"] *= 2
    b.write_text(jsonl([header(), faster, end(measurements=1)] + slower))
    out = tmp_path / "cmp.html"
    assert report.main(["--compare", str(a), str(b), "-o", str(out)]) == 0
    html = out.read_text()
    rows = re.findall(r"<tr>(.*?)</tr>", html.split('id="compare"')[1].split("</table>")[0],
                      re.S)
    io_row = [r for r in rows if "write" in r][0]
    assert '<td class="">16.0</td>' in io_row and '<td class="">32.0</td>' in io_row
    assert '<td class="good">2.000</td>' in io_row  # twice the bandwidth: better
    bcast = [r for r in rows if "Bcast" in r and "size=8 " in r.replace("</td>", " ")][0]
    assert '<td class="bad">2.000</td>' in bcast  # twice the latency: worse
    assert len(images(html)) == 1


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def test_report_renders_in_a_browser(mixed, tmp_path):
    browser = find_browser()
    if not browser:
        pytest.skip("no Chromium installed (scripts/setup.sh installs Debian's chromium)")
    assert report.main([str(mixed)]) == 0
    page = mixed / "report.html"
    shot = tmp_path / "shot.png"
    base = [browser, "--headless", "--no-sandbox", "--disable-gpu",
            "--allow-file-access-from-files", "--virtual-time-budget=5000"]
    # The DOM after load, seen through a copy with a probe script (the report itself has
    # none): every figure decoded (naturalWidth > 0) and the tables present.
    check = tmp_path / "check.html"
    check.write_text(page.read_text().replace(
        "</body>",
        "<script>window.onload=function(){var imgs=document.images,ok=0;"
        "for(var i=0;i<imgs.length;i++){if(imgs[i].complete&&imgs[i].naturalWidth>0)ok++;}"
        "document.title='loaded '+ok+' of '+imgs.length+' tables '+"
        "document.querySelectorAll('table').length;};</script></body>"))
    dom = subprocess.run(base + ["--dump-dom", check.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    m = re.search(r"<title>loaded (\d+) of (\d+) tables (\d+)</title>", dom.stdout)
    assert m, dom.stdout[:500]
    loaded, total, ntables = map(int, m.groups())
    assert total >= 5 and loaded == total and ntables >= 4
    shot_run = subprocess.run(base + [f"--screenshot={shot}", "--window-size=1200,2000",
                                      page.as_uri()], capture_output=True, text=True,
                              timeout=120)
    assert shot_run.returncode == 0, shot_run.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 20000  # a page with figures, not blank
