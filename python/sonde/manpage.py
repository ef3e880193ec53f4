# SPDX-License-Identifier: BSD-3-Clause
"""Manual pages of the Python tools, generated from their argparse parsers (make install writes
them next to sonde's own, which the sonde binary generates from its option tables):

    python -m sonde.manpage --list          the tools: the sonde package's console scripts
    python -m sonde.manpage sonde-suite     sonde-suite(1) in roff on stdout

A tool is a console script of the package whose module has a parser() function, so a new tool
gets its page with no change here."""

import argparse
import importlib
import os
import sys
import time
from importlib import metadata

from . import __version__


def tools():
    """{console script name: module} of the sonde distribution's tools that have a parser()."""
    found = {}
    for ep in metadata.distribution("sonde").entry_points:
        if ep.group == "console_scripts":
            module = importlib.import_module(ep.module)
            if callable(getattr(module, "parser", None)):
                found[ep.name] = module
    return dict(sorted(found.items()))


def text(s):
    """s as roff text: backslashes print, dashes stay minus signs, and a line that starts with
    a dot or a quote is not a request."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def first_paragraph(doc):
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def expanded_help(action, prog):
    """The help text as argparse prints it (%(default)s and the like filled in)."""
    params = dict(vars(action), prog=prog)
    if action.choices is not None:
        params["choices"] = ", ".join(map(str, action.choices))
    return " ".join((action.help % params).split())


def tag(action):
    """-o, --output report.html in bold and italics; positional arguments by their metavar."""
    formatter = argparse.HelpFormatter("x")
    if not action.option_strings:
        return f"\\fI{text(formatter._metavar_formatter(action, action.dest)(1)[0])}\\fR"
    names = ", ".join(f"\\fB{text(o)}\\fR" for o in action.option_strings)
    if action.nargs == 0:
        return names
    metavar = formatter._format_args(action, action.dest.upper())
    return f"{names} \\fI{text(metavar)}\\fR"


def arguments(out, parser):
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        out.append(".TP")
        out.append(tag(action))
        out.append(text(expanded_help(action, parser.prog)))


def page(name, module):
    """The roff of tool name, from module.parser() and the module's docstring."""
    parser = module.parser()
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    date = time.strftime("%Y-%m-%d", time.gmtime(int(epoch) if epoch else None))
    out = [f'.TH {text(name.upper())} 1 {date} "sonde {__version__}" "sonde manual"',
           ".nh", ".ds AD l", ".ad l",
           ".SH NAME", f"{text(name)} \\- {text(parser.description or '')}",
           ".SH SYNOPSIS"]
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    subparsers = list(commands[0].choices.items()) if commands else []
    for sub in [p for _, p in subparsers] or [parser]:
        out += [text(" ".join(sub.format_usage().removeprefix("usage: ").split())), ".br"]
    out += [".SH DESCRIPTION", text(first_paragraph(module.__doc__))]
    if commands:
        out.append(".SH COMMANDS")
        helps = {c.dest: c.help for c in commands[0]._choices_actions}
        for command, sub in subparsers:
            out += [".SS", text(f"{name} {command}"), text(helps.get(command) or "")]
            arguments(out, sub)
    out.append(".SH OPTIONS")
    arguments(out, parser)
    others = ["sonde"] + [t for t in tools() if t != name]
    out.append(".SH SEE ALSO")
    out += [f".BR {text(t)} (1)" + ("," if i + 1 < len(others) else "")
            for i, t in enumerate(others)]
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m sonde.manpage",
                                description="Manual pages of sonde's Python tools.")
    p.add_argument("tool", nargs="?", help="the tool whose page to print")
    p.add_argument("--list", action="store_true", help="print the tools, one a line")
    args = p.parse_args(argv)
    found = tools()
    if args.list:
        print("\n".join(found))
        return 0
    if args.tool not in found:
        p.error(f"no tool {args.tool!r}; the tools: {', '.join(found)}")
    sys.stdout.write(page(args.tool, found[args.tool]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
