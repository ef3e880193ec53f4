# SPDX-License-Identifier: BSD-3-Clause
"""The manual pages and the bash completion the build generates from the option tables
(build/man/, build/completion/sonde): one page and one completion entry for every workload the
binary has, pages without a groff warning, every option of --help in its page with the default
the workload runs with, and the DIFFERENCES of the workload's docs page."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, SONDE, read_jsonl, run_sonde

BUILD = Path(SONDE).parent
MAN_ENV = dict(os.environ, MANWIDTH="250", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")

pytestmark = pytest.mark.skipif(not shutil.which("man") or not shutil.which("groff"),
                                reason="man-db and groff are not installed (make setup)")


def workloads():
    out = subprocess.run([SONDE, "--help"], capture_output=True, text=True, timeout=30)
    return re.findall(r"^  (\w+) ", out.stdout.split("Options every workload")[0], re.MULTILINE)


def rendered(page):
    """The page as man shows it, and groff's warnings (--warnings: all of them)."""
    proc = subprocess.run(["man", "--warnings=all", "-l", str(page)], capture_output=True,
                          text=True, env=MAN_ENV, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def section(text, name, strip=True):
    """The lines of one section (NAME ... up to the next heading), without the indentation."""
    m = re.search(rf"^{name}\n(.*?)(?=^\S)", text, re.MULTILINE | re.DOTALL)
    assert m, f"no {name} section"
    return [ln.strip() if strip else ln for ln in m.group(1).splitlines()]


def page_entries(workload):
    """[(first line, the lines after it)] of the entries of the page's OPTIONS: a tag at the
    section's indent, its body indented further (on the tag's line when the tag is short)."""
    text, _ = rendered(BUILD / "man" / f"sonde-{workload}.1")
    entries = []
    for ln in section(text, "OPTIONS", strip=False):
        if re.match(r"^ {7}-", ln):
            entries.append([ln.strip(), ""])
        elif entries and ln.startswith(" " * 14):
            entries[-1][1] += " " + ln.strip()
    return entries


def entry(entries, spelled):
    """The body of the entry whose tag is spelled, or None."""
    for first, rest in entries:
        if first == spelled or first.startswith(spelled + " ") and len(spelled) < 7:
            return " ".join((first[len(spelled):] + rest).split())
    return None


def help_entries(workload):
    """(spelling, help text) of every option line of `sonde WORKLOAD --help`."""
    out = subprocess.run([SONDE, workload, "--help"], capture_output=True, text=True,
                         timeout=30).stdout
    entries, spelled = [], None
    for line in out.splitlines():
        m = re.match(r"^  (-\S.*?)(?:  +(.*))?$", line)
        if m and not line.startswith("   "):
            if m.group(2):
                entries.append((m.group(1), m.group(2)))
            else:
                spelled = m.group(1)  # the help text is on the next line
        elif spelled and line.startswith("    "):
            entries.append((spelled, line.strip()))
            spelled = None
    return entries


def test_every_workload_has_a_page_and_completion():
    names = workloads()
    assert names, "sonde --help lists no workload"
    pages = sorted(p.name for p in (BUILD / "man").glob("*.1"))
    assert pages == sorted(["sonde.1"] + [f"sonde-{w}.1" for w in names])
    text, warnings = rendered(BUILD / "man" / "sonde.1")
    assert warnings == ""
    for w in names:
        assert f"sonde-{w}(1)" in " ".join(section(text, "WORKLOADS"))
        assert f"sonde-{w}(1)" in " ".join(section(text, "SEE ALSO"))
    script = (BUILD / "completion" / "sonde").read_text()
    assert re.search(r"_sonde_reply -W '" + " ".join(names) + " mix --help --version'", script)
    for w in names:
        assert f"\n\t{w})\n" in script


def test_sonde_page_has_every_top_level_mode():
    """The modes main answers (the first word after sonde), in sonde(1) as in sonde --help."""
    usage = subprocess.run([SONDE, "--help"], capture_output=True, text=True,
                           timeout=60).stdout
    text, warnings = rendered(BUILD / "man" / "sonde.1")
    assert warnings == ""
    synopsis = section(text, "SYNOPSIS")
    options = " ".join(section(text, "OPTIONS"))
    for mode, words in (("--version", ""), ("--parse-only", " RANKS TASKS_PER_NODE <workload>")):
        assert f"sonde {mode}{words}" in usage
        assert any(ln.startswith(f"sonde {mode}{words.lower().replace('<', '').replace('>', '')}")
                   for ln in synopsis), (mode, synopsis)
        assert mode in options


@pytest.mark.parametrize("workload", workloads())
def test_page_has_every_option_of_help(workload):
    text, warnings = rendered(BUILD / "man" / f"sonde-{workload}.1")
    assert warnings == ""
    assert section(text, "NAME")[0].startswith(f"sonde-{workload} - ")
    page = page_entries(workload)
    entries = help_entries(workload)
    assert entries
    for spelled, meaning in entries:
        body = entry(page, spelled)
        assert body is not None, f"{spelled} is not an entry of the page"
        if " ".join(meaning.split()) in body:
            continue  # a default the help text states in its own words, as the page does
        # --help's generated "(default 1m)" is the page's "Default: 1048576 (1m)."
        meaning, default = re.match(r"^(.*?)(?: \(default (\S+)\))?$", meaning).groups()
        assert " ".join(meaning.split()) in body, (spelled, meaning)
        if default:
            assert re.search(rf"Default: (\S+ \()?{re.escape(default)}\)?\.", body), (
                spelled, default, body)


def markdown_differences(workload):
    text = (REPO / "docs" / "workloads" / f"{workload}.md").read_text()
    m = re.search(r"^## [^\n]*[Dd]iffer[^\n]*\n(.*?)(?=^#{1,2} |\Z)", text,
                  re.MULTILINE | re.DOTALL)
    assert m, f"docs/workloads/{workload}.md has no '## ... differ...' section"
    return m.group(1)


@pytest.mark.parametrize("workload", workloads())
def test_differences_come_from_the_docs_page(workload):
    body = markdown_differences(workload)
    bullets = re.findall(r"^\s*[-*] (.*)$", body, re.MULTILINE)
    rows = [r for r in re.findall(r"^\|(.*)\|\s*$", body, re.MULTILINE)
            if not re.fullmatch(r"[\s|:-]*", r)][1:]  # without the header and the separator
    text, _ = rendered(BUILD / "man" / f"sonde-{workload}.1")
    diff = section(text, "DIFFERENCES")
    items = [ln for ln in diff if ln.startswith("•")]
    assert len(items) == len(bullets) + len(rows) > 0
    # each item starts with its Markdown's words, the markup gone
    flat = " ".join(" ".join(diff).split())
    for b in bullets:
        words = re.sub(r"[`*]|\[([^]]*)\]\([^)]*\)", r"\1", b).split()[:6]
        assert " ".join(words) in flat, b


# Command lines that set nothing but what the workload needs, so that every other parameter in
# the run's header is its default. Workloads not listed here are checked by the tests above.
MINIMAL = {
    "ior": lambda d: ["-w", "-o", d / "f"],
    "mib": lambda d: ["-t", d, "-F", "-l", "8", "-s", "4k"],
    "coll": lambda d: ["Barrier"],
    "mpiio": lambda d: ["-target", d / "f"],
    "mdtest": lambda d: ["-d", d, "-n", "4"],
    "find": lambda d: [d],
    "train": lambda d: ["-d", d, "--generate", "--num-files", "2", "--record-size", "4k"],
}


def page_defaults(workload, spellings):
    """{spelling: the Default: text} of the page's entries of those spellings that have one."""
    page, found = page_entries(workload), {}
    for spelled in spellings:
        m = re.search(r" Default: (.*)\.$", entry(page, spelled) or "")
        if m:
            found[spelled] = m.group(1)
    return found


def markdown_rows(workload):
    """(spelling, record name, meaning) of each row of the option reference."""
    md = subprocess.run([SONDE, workload, "--help-markdown"], capture_output=True, text=True,
                        timeout=30).stdout
    rows = re.findall(r"^\| `(.+?)` \| (?:`([^`]+)`)? \| (.*) \|$", md, re.MULTILINE)
    return [(spelled.replace("\\|", "|"), key, meaning) for spelled, key, meaning in rows]


@pytest.mark.parametrize("workload", sorted(set(MINIMAL) & set(workloads())))
def test_page_defaults_are_what_a_run_uses(workload, tmp_path):
    """The Default: of each entry against the parameter the run records (its record name from
    the option reference), for every option the command line leaves alone."""
    argv = [str(a) for a in MINIMAL[workload](tmp_path)]
    results = tmp_path / "r.jsonl"
    run_sonde([workload, *argv, "--json", results], np=1, cwd=tmp_path)
    params = read_jsonl(results)[0]["params"]
    rows = markdown_rows(workload)
    keys = {spelled: key for spelled, key, _ in rows if key}
    defaults = page_defaults(workload, [spelled for spelled, _, _ in rows])
    assert defaults, f"sonde-{workload}(1) shows no default"
    checked = 0
    for spelled, default in defaults.items():
        if spelled not in keys or any(word in argv for word in re.split(r",? |\[", spelled)):
            continue  # an alias of an entry checked under its own name, or given
        value = params[keys[spelled]]
        shown = {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value
        if isinstance(value, list):
            shown = " ".join(value)
        assert default.split(" (")[0] == str(shown), (spelled, default, value)
        checked += 1
    assert checked >= 3


COMPLETE = r"""
source "$1"
shift
complete_words() {
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _sonde
    ((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"; echo "--"
}
while IFS= read -r line; do eval "complete_words $line"; done
"""


def complete(lines):
    """What the generated completion offers for each command line (the last word is the one
    being completed)."""
    proc = subprocess.run(["bash", "-c", COMPLETE, "bash", str(BUILD / "completion" / "sonde")],
                          input="".join(ln + "\n" for ln in lines), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return [block.split("\n")[:-1] for block in proc.stdout.split("--\n")[:-1]]


def test_completion_offers_workloads():
    names = workloads()
    (offered,) = complete(["sonde ''"])
    assert offered == names + ["mix", "--help", "--version"]


@pytest.mark.parametrize("workload", workloads())
def test_completion_offers_every_option(workload, tmp_path):
    words = []
    for spelled, _, meaning in markdown_rows(workload):
        if meaning.startswith("refused") or re.match(r"-O \w+=", spelled):
            continue  # refused options are not offered; directives are -O's values
        words += [re.split(r"[ \[]", name)[0] for name in spelled.split(", ")]
    words = list(dict.fromkeys(words))
    assert words
    answers = complete([f"sonde {workload} {w}" for w in words])
    for w, offered in zip(words, answers, strict=True):
        assert w in offered, (w, offered)
    # a path option completes file names; --json is in every workload
    (tmp_path / "results-here.jsonl").write_text("")
    (offered,) = complete([f"sonde {workload} --json {tmp_path}/results-h"])
    assert offered == [f"{tmp_path}/results-here.jsonl"]


def test_completion_values_and_directories(tmp_path):
    (tmp_path / "scratch dir").mkdir()
    (tmp_path / "scratch file").write_text("")
    lines, expected = [], []
    if "btio" in workloads():
        lines.append("sonde btio --mode ''")
        expected.append(["w", "r", "rw"])
    if "mib" in workloads():
        lines.append(f"sonde mib --test_dir '{tmp_path}/scr'")
        expected.append([f"{tmp_path}/scratch dir"])  # directories only, blanks kept
        lines.append("sonde mib --call_size ''")
        expected.append([])  # a number: nothing to offer
    assert complete(lines) == expected


def test_a_page_needs_the_differences_of_its_docs_page(tmp_path):
    """A workload page without its docs page (or its differences) stops the build with
    sonde's reason, and writes nothing."""
    w = workloads()[0]
    out = run_sonde([w, "--help-man", tmp_path / "missing.md"], mpi=False, check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert f"sonde {w}: error: cannot read {tmp_path}/missing.md" in out.stderr
    page = tmp_path / "nodiff.md"
    page.write_text("# x\n\n## What it does\n\ntext\n")
    out = run_sonde([w, "--help-man", page], mpi=False, check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert "has no level-2 heading that says how" in out.stderr
    assert out.stderr.count("\n") == 1


def test_a_workload_without_a_docs_page_gets_its_page(tmp_path):
    """A new workload has no docs page yet (the build then names none): its page is written
    whole, man renders it without a warning, and its DIFFERENCES says that there is no page
    instead of stopping the build."""
    w = workloads()[0]
    out = run_sonde([w, "--help-man"], mpi=False)
    assert out.stderr == ""
    page = tmp_path / f"sonde-{w}.1"
    page.write_text(out.stdout)
    text, warnings = rendered(page)
    assert warnings == ""
    assert section(text, "NAME")[0].startswith(f"sonde-{w} - ")
    diff = " ".join(section(text, "DIFFERENCES"))
    assert f"sonde {w} has no documentation page (docs/workloads/{w}.md)" in diff
    assert section(text, "OPTIONS")
