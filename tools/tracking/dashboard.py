"""The static dashboard of a store: SITE/index.html (the testbeds and every change point) and
SITE/<testbed>/index.html (the latest run's environment, audit and verdict, then each row's
series as a PNG, rows grouped by operation, change points marked and their causes beside,
with the culprit that tools/track bisect or confirm found). No script, nothing fetched from
outside: a Content-Security-Policy allows the page's own images and style sheet only, and
every link is relative, inside SITE. The verdict's Markdown is rendered by markdown-it-py
with raw HTML, links and images off: its text is escaped, it can add no element that loads."""
import hashlib
import html
import io
import json
import os
import re
import shutil
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
from PIL import Image  # noqa: E402  (matplotlib's own dependency)

from markdown_it import MarkdownIt  # noqa: E402  (Debian: python3-markdown-it)

from tracking import analysis, bisect, confirm, store  # noqa: E402

MARKER = ".track-site"  # a folder with it was written here, and may be replaced
CSP = ("default-src 'none'; img-src 'self'; style-src 'self'; base-uri 'none'; "
       "form-action 'none'")
STYLE = """body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.row { border-top: 1px solid #ddd; padding: .4em 0; }
.row h4 { margin: .2em 0; font-family: monospace; }
.slower { color: #a40000; } .faster { color: #006400; }
.cause { font-weight: bold; }
.culprit { font-weight: bold; color: #5a2d82; }
.verdict { border-left: 3px solid #ddd; padding-left: 1em; }
pre { white-space: pre-wrap; background: #f7f7f7; padding: .6em; }
.severity-timing-bug { color: #a40000; font-weight: bold; } .severity-warning { color: #8a5a00; }
"""


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
            "<title>%s</title><link rel=\"stylesheet\" href=\"style.css\"></head>\n"
            "<body>\n%s\n</body></html>\n" % (CSP, esc(title), body))


def table(head, rows) -> str:
    out = ["<table><tr>" + "".join("<th>%s</th>" % esc(h) for h in head) + "</tr>"]
    out += ["<tr>" + "".join("<td>%s</td>" % cell for cell in row) + "</tr>" for row in rows]
    return "\n".join(out) + "</table>"


def change_text(c: dict) -> str:
    cls = "slower" if c["change_pct"] > 0 else "faster"
    return ("<span class=\"%s\">%.4g &rarr; %.4g ms (%+.1f%%)</span>, p %.3g"
            % (cls, c["before_ms"], c["after_ms"], c["change_pct"], c["p"]))


def cause_html(cause: dict) -> str:
    return "<span class=\"cause\">cause: %s</span>" % esc(analysis.cause_text(cause))


def answer_html(c: dict) -> str:
    """The culprit and the confirmed keys of a change point, with the evidence, and what a bisect
    or confirm that found neither said; nothing without an answer (its cause is the list of
    candidates)."""
    parts = []
    k = c.get("culprit")
    if k:
        rows = "; ".join(bisect.row_text(r) for r in k["rows"] if r.get("outcome") != bisect.SAME)
        merge = " (in the branch of merge %s)" % k["merge"][:10] if k.get("merge") else ""
        parts.append("<span class=\"culprit\">culprit: <code>%s</code> %s</span>%s: %s, %d steps, %s"
                     % (esc(k["short"]), esc(k["subject"]), esc(merge), esc(rows), k["steps"],
                        esc(bisect.duration(k["seconds"]))))
    for lever in c.get("confirmed", []):
        rows = "; ".join(bisect.row_text(r) for r in lever["rows"] if r.get("outcome") == bisect.MOVED)
        parts.append("<span class=\"culprit\">confirmed: %s</span> (%s): %s"
                     % (esc(confirm.keys_text(lever["keys"], short=True)), esc(lever["how"]), esc(rows)))
    shown = {"bisect"} if k else set()
    if c.get("confirmed"):
        shown.add("confirm")
    parts += [esc(a["line"]) for a in c.get("answers", []) if a["kind"] not in shown]  # e.g. no culprit
    return "<br>".join(parts)


def verdict_html(text: str) -> str:
    """The verdict's Markdown as HTML: headings (under the page's own), lists, tables, emphasis,
    code; raw HTML shown as text, no link or image."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable(["image", "link", "autolink"])
    tokens = md.parse(text)
    for t in tokens:
        if t.type in ("heading_open", "heading_close"):
            t.tag = "h%d" % min(6, int(t.tag[1]) + 3)  # "# Verdict" under this page's h3
    return "<div class=\"verdict\">%s</div>" % md.renderer.render(tokens, md.options, {})


def slug(key: str) -> str:
    return hashlib.sha1(key.encode()).hexdigest()[:12]


class Plotter:
    """One figure, redrawn for each row (a figure a row is most of the dashboard's time)."""

    def __init__(self):
        self.fig, self.ax = plt.subplots(figsize=(7.0, 1.9), dpi=72)
        self.fig.subplots_adjust(left=0.09, right=0.99, top=0.95, bottom=0.2)
        ax = self.ax
        ax.set_xlabel("run", fontsize=8, labelpad=0)
        ax.set_ylabel("ms", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=.3)
        ax.yaxis.set_major_locator(MaxNLocator(4))

    def plot(self, path: str, s: analysis.Series, runs: int):
        ax = self.ax
        for artist in list(ax.lines) + list(ax.collections) + list(ax.texts):
            artist.remove()  # not ax.clear(): remaking the axes costs more than drawing them
        ax.plot(s.positions, s.ms, "o-", ms=3, lw=1, color="#1f5fa8")
        cut = [s.positions.index(c["run_index"]) for c in s.change_points]
        for a, b in zip([0] + cut, cut + [len(s.ms)]) if s.ms else ():
            ax.hlines(statistics.median(s.ms[a:b]), s.positions[a] - 0.4, s.positions[b - 1] + 0.4,
                      colors="#888", lw=2, alpha=.6)
        for number, c in enumerate(s.change_points, 1):
            ax.axvline(c["run_index"] - 0.5, color="#c00", ls="--", lw=1)
            ax.annotate(str(number), (c["run_index"] - 0.5, 1), xycoords=("data", "axes fraction"),
                        xytext=(3, -12), textcoords="offset points", color="#c00", fontsize=9)
        if s.errors:
            ax.plot(list(s.errors), [min(s.ms) if s.ms else 0] * len(s.errors), "x", color="#c00", ms=6)
        ax.relim()
        ax.autoscale_view()
        ax.set_xlim(-0.5, max(runs - 0.5, 0.5))
        buffer = io.BytesIO()
        self.fig.savefig(buffer, format="png")
        # 32 colours are plenty for a line plot and make the file a third of the size
        Image.open(buffer).convert("RGB").quantize(colors=32).save(path, optimize=True)


def changes_between_runs(records) -> list:
    """[(run index, cause)] for each run whose fingerprint or commit differs from the previous."""
    causes = analysis.Causes(records)
    out = []
    for i in range(1, len(records)):
        cause = causes.of(i - 1, i)
        if cause["environment"] or cause["commits"]:
            out.append((i, cause))
    return out


def audit_html(audit) -> str:
    if audit is None:
        return "<p>No audit stored with this run.</p>"
    if not audit["findings"]:
        return "<p>Clean: no finding.</p>"
    said = {}  # a cause several findings share (audit.json's "cause"), said with the first
    rows = []
    for i, f in enumerate(audit["findings"], 1):
        cause = f.get("cause") or ""
        if cause:
            cause = " " + cause if cause not in said else " The same cause as †%d." % said[cause]
            said.setdefault(f["cause"], f.get("number") or i)
        rows.append(("<span class=\"severity-%s\">%s</span>" % (esc(f.get("severity")), esc(f.get("severity"))),
                     esc(f.get("rule")), esc(", ".join(f.get("rows", [])) or "the run"),
                     "†%d " % (f.get("number") or i) + esc(f.get("message", "") + cause)))
    return ("<p>%s</p>" % ("clean" if audit["clean"] else "not clean")) + table(
        ("severity", "rule", "rows", "finding"), rows)


def testbed_page(folder: str, testbed: str, records, result, rows, plotter) -> str:
    latest = records[-1]
    cps = sorted(((c, s) for s in rows.values() for c in s.change_points),
                 key=lambda cs: (cs[0]["run_index"], cs[0]["row"]))
    body = ["<p><a href=\"../index.html\">All testbeds</a></p>",
            "<h1>%s</h1>" % esc(testbed),
            "<p>%d runs, %s to %s; %d rows; %d change points.</p>"
            % (len(records), esc(records[0]["date"]), esc(latest["date"]), len(rows), len(cps))]
    body.append("<h2>Change points</h2>")
    body.append(table(("row", "run", "date", "change", "cause", "culprit"),
                      [("<a href=\"#row-%s\">%s</a>" % (slug(s.key), esc(c["row"])), str(c["run_index"]),
                        esc(c["date"]), change_text(c), cause_html(c["cause"]), answer_html(c)) for c, s in cps])
                if cps else "<p>None.</p>")
    changes = changes_between_runs(records)
    body.append("<h2>What changed between runs</h2>")
    body.append(table(("run", "date", "changed"),
                      [(str(i), esc(records[i]["date"]), esc(analysis.cause_text(c))) for i, c in changes])
                if changes else "<p>Nothing recorded changed.</p>")
    creeps = [c for c in result["creep"] if c["testbed"] == testbed]
    if creeps:
        flagged = sorted((c for c in creeps if c["flagged"]), key=lambda c: -abs(c["change_pct"]))
        body.append("<h2>Creep against the baseline run of %s</h2>" % esc(creeps[0]["baseline_date"]))
        body.append("<p>%d of %d rows of the latest run beyond their noise.</p>" % (len(flagged), len(creeps)))
        if flagged:
            body.append(table(("row", "baseline", "latest", "change", "noise"),
                              [(esc(c["row"]), "%.4g ms" % c["baseline_ms"], "%.4g ms" % c["latest_ms"],
                                "%+.1f%%" % c["change_pct"], "%.1f%%" % c["noise_pct"]) for c in flagged]))
    body.append("<h2>Latest run</h2><p>%s, %s</p>" % (esc(latest["source"]["file"]), esc(latest["date"])))
    body.append(table(("key", "value"), [(esc(k), esc(v)) for k, v in sorted(latest["fingerprint"].items())]))
    body.append("<h3>Audit</h3>" + audit_html(latest.get("audit")))
    body.append("<h3>Verdict</h3>" + (verdict_html(latest["verdict_md"]) if latest.get("verdict_md")
                                      else "<p>No verdict stored with this run.</p>"))
    body.append("<h2>Rows</h2>")
    os.makedirs(os.path.join(folder, "plots"))
    by_op = {}
    for s in rows.values():
        by_op.setdefault(s.op, []).append(s)
    body.append("<p>%s</p>" % " &middot; ".join("<a href=\"#op-%s\">%s</a>" % (esc(op), esc(op))
                                               for op in sorted(by_op)))
    for op in sorted(by_op):
        body.append("<section id=\"op-%s\"><h3>%s</h3>" % (esc(op), esc(op)))
        for s in sorted(by_op[op], key=lambda s: natural(s.name)):
            body.append(row_html(folder, s, len(records), plotter))
        body.append("</section>")
    return page("solve_bench history: " + testbed, "\n".join(body))


def natural(name: str):
    """Sort key that puts n:64 before n:128."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name)]


def row_html(folder: str, s: analysis.Series, runs: int, plotter) -> str:
    name = slug(s.key)
    plotter.plot(os.path.join(folder, "plots", name + ".png"), s, runs)
    facts = "%d runs with a time" % len(s.ms)
    if s.ms:
        facts += "; latest %.4g ms (run %d)" % (s.ms[-1], s.positions[-1])
    noise = [v for v in s.noise if isinstance(v, (int, float))]
    if noise:
        facts += "; noise %.1f%% (median noise_pct)" % statistics.median(noise)
    if s.errors:
        facts += "; failed in run%s %s" % ("s" if len(s.errors) > 1 else "",
                                           ", ".join(map(str, sorted(s.errors))))
    items = "".join("<li>change point %d at run %d (%s): %s; %s%s</li>"
                    % (i, c["run_index"], esc(c["date"]), change_text(c), cause_html(c["cause"]),
                       "<br>" + answer_html(c) if answer_html(c) else "")
                    for i, c in enumerate(s.change_points, 1))
    return ("<div class=\"row\" id=\"row-%s\"><h4>%s</h4><p>%s</p>"
            "<img src=\"plots/%s.png\" alt=\"%s: median time of each run\" width=\"504\" height=\"137\">%s</div>"
            % (name, esc(s.name), facts, name, esc(s.name), "<ul>%s</ul>" % items if items else ""))


def index_page(stored, result) -> str:
    body = ["<h1>solve_bench history</h1>"]
    if not stored:
        body.append("<p>The store has no runs.</p>")
    lines = []
    for testbed, info in result["testbeds"].items():
        count = sum(1 for c in result["change_points"] if c["testbed"] == testbed)
        lines.append(("<a href=\"%s/index.html\">%s</a>" % (esc(testbed), esc(testbed)), str(info["runs"]),
                      "%s to %s" % (esc(info["first"]), esc(info["last"])), str(info["rows"]), str(count)))
    if lines:
        body.append(table(("testbed", "runs", "dates", "rows", "change points"), lines))
    cps = sorted(result["change_points"], key=lambda c: (c["testbed"], c["run_index"], c["row"]))
    body.append("<h2>Change points</h2>")
    body.append(table(("testbed", "row", "run", "change", "cause", "culprit"),
                      [(esc(c["testbed"]), esc(c["row"]), str(c["run_index"]), change_text(c),
                        cause_html(c["cause"]), answer_html(c)) for c in cps]) if cps else "<p>None.</p>")
    body.append("<p>The analysis as JSON: <a href=\"analysis.json\">analysis.json</a>.</p>")
    return page("solve_bench history", "\n".join(body))


def fresh_folder(out: str):
    """Create `out`, replacing a site written here before; refuse any other non-empty folder."""
    if os.path.isdir(out) and os.listdir(out):
        if not os.path.exists(os.path.join(out, MARKER)):
            raise store.InputError("%s: a non-empty folder that is not a dashboard: not replaced" % out)
        shutil.rmtree(out)
    os.makedirs(out, exist_ok=True)
    open(os.path.join(out, MARKER), "w").close()


def write(path: str, text: str):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_site(out: str, stored: dict, result: dict, series: dict) -> str:
    fresh_folder(out)
    plotter = Plotter()
    for testbed, records in stored.items():
        folder = os.path.join(out, testbed)
        os.makedirs(folder)
        write(os.path.join(folder, "style.css"), STYLE)
        write(os.path.join(folder, "index.html"),
              testbed_page(folder, testbed, records, result, series[testbed], plotter))
    write(os.path.join(out, "style.css"), STYLE)
    write(os.path.join(out, "analysis.json"), json.dumps(result, indent=1) + "\n")
    index = os.path.join(out, "index.html")
    write(index, index_page(stored, result))
    return index
