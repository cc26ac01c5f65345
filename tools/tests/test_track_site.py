#!/usr/bin/env python3
"""tools/track's dashboard: its pages and plots; with --browser, the site in headless Chromium
(DOM, net log, screenshot). Without a Chromium, --browser exits 77 (skipped), or 1 with
--require-browser (CI, where .ci/run installs it)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

from trackhist import TrackCase, analysis, dashboard_history
from tracking.dashboard import Plotter  # noqa: E402 (trackhist puts tools/ on the path)


class DashboardTest(TrackCase):
    def test_site(self):
        site = dashboard_history(self)
        with open(os.path.join(site, "bench1", "index.html")) as f:
            page = f.read()
        with open(os.path.join(site, "index.html")) as f:
            index = f.read()
        for text in (index, page):
            self.assertIn('http-equiv="Content-Security-Policy" content="default-src \'none\'', text)
            self.assertNotIn("<script", text)
            self.assertIn("cause: blas_core Haswell -&gt; Prescott", text)
        for row in ("CPU/dgesv/n:1024/nrhs:1", "CPU/dgetrf/n:256", "GPU/dgesv/n:1024/nrhs:1"):
            self.assertIn("<h4>%s</h4>" % row, page)
        self.assertIn("power-capped", page)
        self.assertIn("GPU faster from n = 256", page)
        self.assertEqual(page.count("change point 1 at run 12"), 2)
        # the answers beside their change points: in both tables and under the row
        culprit = ("<span class=\"culprit\">culprit: <code>bbbbbbb</code> lapack: let LAPACKE &lt;check&gt; its "
                   "inputs</span>: CPU/dgetrs/n:256/nrhs:1 +98% (±4%, 16 pairs), 4 steps, 6.0 min")
        self.assertEqual(page.count(culprit), 2)
        self.assertEqual(index.count(culprit), 1)
        confirmed = "<span class=\"culprit\">confirmed: blas_core Haswell -&gt; Prescott</span>"
        self.assertEqual(page.count(confirmed), 4)  # two rows, in the table and under each row
        self.assertEqual(index.count(confirmed), 2)
        for folder, text in ((site, index), (os.path.join(site, "bench1"), page)):
            for ref in re.findall(r'(?:src|href)="([^"]+)"', text):
                self.assertNotRegex(ref, r"^[a-z]+:|^/|^//", ref)
                target = os.path.realpath(os.path.join(folder, ref.split("#")[0])) if ref.split("#")[0] else folder
                self.assertTrue(target.startswith(os.path.realpath(site) + os.sep) or target == os.path.realpath(site))
                self.assertTrue(os.path.exists(target), ref)
        plots = os.listdir(os.path.join(site, "bench1", "plots"))
        self.assertEqual(len(plots), 4)
        with open(os.path.join(site, "bench1", "plots", plots[0]), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        failed = analysis.Series("r", "CPU/x/n:1", None, errors={0: "no memory", 1: "no memory"})
        Plotter().plot(os.path.join(self.dir, "failed.png"), failed, 2)  # a row with no time at all
        self.assertTrue(os.path.getsize(os.path.join(self.dir, "failed.png")) > 0)
        self.track("dashboard", "--store", self.store, "--out", site)  # its own site: replaced
        self.track("dashboard", "--store", self.store, "--out", self.store, expect=2)  # anything else: refused

    def test_verdict_rendered_safely(self):
        """The verdict's Markdown as HTML (headings under the page's, lists, a table, emphasis,
        code); its raw HTML, links and images as text: nothing that runs or loads."""
        site = dashboard_history(self)
        with open(os.path.join(site, "bench1", "index.html")) as f:
            page = f.read()
        verdict = page[page.index("<div class=\"verdict\">"):]
        verdict = verdict[:verdict.index("</div>")]
        for html in ("<h4>Verdict</h4>", "<h5>Caveats from the audit</h5>", "<li>dgesv: GPU faster from n = 256</li>",
                     "<strong>blas_threads</strong> (warning): one BLAS thread †1", "<td><code>blas_threads</code></td>",
                     "GPU: <strong>none</strong>", "&lt;script&gt;alert(1)&lt;/script&gt;"):
            self.assertIn(html, verdict)
        for raw in ("# Verdict", "**", "<script", "<img", "<a ", "javascript:alert(1)\">", "src=\"http"):
            self.assertNotIn(raw, verdict)
        self.assertNotIn("<script", page)


def chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def requests_in(net_log: str):
    """(requests a page made, requests the browser made on its own) in a Chromium net log:
    [(initiator, url)]. The browser's own (component updates, network time, sign-in) have the
    initiator "not an origin"; a file:// page's have "null" (its opaque origin)."""
    with open(net_log) as f:
        text = f.read()
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # a log Chromium did not get to close
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    jobs = [(e["params"].get("initiator"), e["params"]["url"]) for e in log["events"]
            if e["type"] == start and "url" in e.get("params", {})]
    return ([j for j in jobs if j[0] != "not an origin"], [j for j in jobs if j[0] == "not an origin"])


class BrowserTest(TrackCase):
    BROWSER = None

    def render(self, path, *options):
        """(the DOM, the page's requests) of file://path in headless Chromium."""
        profile = tempfile.mkdtemp(dir=self.dir)
        net_log = profile + ".netlog.json"
        p = subprocess.run([self.BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                            "--no-first-run", "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", "--user-data-dir=" + profile, "--log-net-log=" + net_log]
                           + list(options) + ["file://" + path], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        page, own = requests_in(net_log)
        print("%s: %d requests from the page, %d of the browser's own (%s)"
              % (os.path.basename(path), len(page), len(own), ", ".join(sorted({u.split("?")[0] for _, u in own}))))
        return p.stdout, page

    def test_dashboard_in_chromium(self):
        site = dashboard_history(self)
        dom, requests = self.render(os.path.join(site, "index.html"), "--dump-dom")
        self.assertIn("CPU/dgesv/n:1024/nrhs:1", dom)
        self.assertIn("cause: blas_core Haswell -&gt; Prescott", dom)
        self.assertEqual([u for _, u in requests if not u.startswith("file:")], [])
        page = os.path.join(site, "bench1", "index.html")
        dom, requests = self.render(page, "--dump-dom")
        for row in ("CPU/dgesv/n:1024/nrhs:1", "CPU/dgetrf/n:256", "GPU/dgesv/n:1024/nrhs:1"):
            self.assertIn("<h4>%s</h4>" % row, dom)
        self.assertEqual(dom.count("change point 1 at run 12"), 2)
        self.assertIn("cause: blas_core Haswell -&gt; Prescott", dom)
        self.assertEqual(dom.count('<span class="culprit">culprit: <code>bbbbbbb</code> lapack: let LAPACKE '
                                   '&lt;check&gt; its inputs</span>'), 2)
        self.assertIn("<h4>Verdict</h4>", dom)
        self.assertIn("<strong>blas_threads</strong>", dom)
        self.assertNotIn("# Verdict", dom)
        self.assertNotIn("<script", dom)
        self.assertEqual([u for _, u in requests if not u.startswith("file:")], [])
        shot = os.path.join(self.dir, "shot.png")
        self.render(page, "--screenshot=" + shot, "--window-size=1000,5000", "--hide-scrollbars")
        import matplotlib.pyplot as plt
        pixels = plt.imread(shot)[:, :, :3]
        self.assertGreater(np.mean(np.any(pixels < 0.9, axis=2)), 0.01)  # not blank
        line = np.all(np.abs(pixels - np.array([0x1f, 0x5f, 0xa8]) / 255) < 0.08, axis=2)
        self.assertGreater(line.sum(), 100)  # the plots' lines: their PNGs loaded

    def test_the_check_sees_a_request_outside(self):
        """The control: a page that fetches from outside is caught by requests_in."""
        path = os.path.join(self.dir, "leak.html")
        with open(path, "w") as f:
            f.write('<!DOCTYPE html><p>leak</p><img src="http://127.0.0.1:9/x.png">')
        _, requests = self.render(path, "--dump-dom")
        self.assertIn("http://127.0.0.1:9/x.png", [u for _, u in requests])


if __name__ == "__main__":
    if "--browser" in sys.argv:
        BrowserTest.BROWSER = chromium()
        if not BrowserTest.BROWSER:
            print("SKIPPED: no chromium (Debian: apt install chromium) to open the dashboard in")
            sys.exit(1 if "--require-browser" in sys.argv else 77)
        tests = ["BrowserTest"]
    else:
        tests = ["DashboardTest"]
    unittest.main(argv=[sys.argv[0]], defaultTest=tests, verbosity=2)
