# SPDX-License-Identifier: BSD-3-Clause
"""Headless Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe:
JSON messages ended by a NUL byte on file descriptors 3 and 4), with no package beyond the
standard library: the tests load a page, time it until Bokeh has drawn every figure, collect
console errors, exceptions and network requests, read the DOM and take screenshots."""

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe", "--hide-scrollbars"]


def find():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with a fresh profile; use as a context manager."""

    def __init__(self, binary, width=1200, height=900):
        self.profile = tempfile.mkdtemp(prefix="sonde-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        os.set_inheritable(to_chrome_r, True)
        os.set_inheritable(from_chrome_w, True)

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen([binary, *FLAGS, f"--window-size={width},{height}",
                                      f"--user-data-dir={self.profile}",
                                      "about:blank"], preexec_fn=fds, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def __enter__(self):
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        return self

    def __exit__(self, *exc):
        try:
            self.call("Browser.close", session=False, timeout=10)
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from Chromium in time")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise BrowserError("Chromium closed its pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=True, timeout=60, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise BrowserError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for k, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(k)
            self.events.append(self._read(deadline))

    def evaluate(self, expression, timeout=60):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True, timeout=timeout)
        if "exceptionDetails" in r:
            raise BrowserError(f"{expression[:60]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def open(self, url, ready, timeout=120):
        """Navigates to url and waits until the JavaScript expression ready is true; returns
        the seconds from navigation to ready."""
        t0 = time.monotonic()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", timeout)
        while not self.evaluate(ready):
            if time.monotonic() - t0 > timeout:
                raise BrowserError(f"not ready after {timeout} s: {ready}")
            time.sleep(0.05)
        return time.monotonic() - t0

    def problems(self):
        """Console errors and warnings, uncaught exceptions and log errors so far."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning",
                                                                     "assert"):
                out.append(" ".join(str(a.get("value", a.get("description")))
                                    for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                out.append(json.dumps(p.get("exceptionDetails"))[:500])
            elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(p["entry"].get("text", ""))
        return out

    def requests(self):
        """Every URL the page asked for."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, clip=None):
        """PNG bytes of the viewport, or of clip {x, y, width, height} on the page."""
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = dict(clip, scale=1)
        return base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
