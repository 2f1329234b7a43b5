#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drives a page of the published dashboard in headless Chromium over the
DevTools protocol (--remote-debugging-pipe: no port, nothing to clean up)
and prints what a user would see, one fact a line, for the C test
(tests/e2e/test_dashboard.c) to assert on.

usage: browse_page.py CHROMIUM PROFILE_DIR FILE [ACTION ...]

ACTION is one of
  hover SELECTOR       move the mouse to the centre of the first element
                       matching SELECTOR
  drag SEL_A SEL_B     press on SEL_A, move to SEL_B and release there
  click SELECTOR       click the centre of the first match
  text SELECTOR        print "text SELECTOR: <its textContent>"
  count SELECTOR       print "count SELECTOR: <its matches>"
  shown SELECTOR       print "shown SELECTOR: <its matches not display:none>"
  attr SELECTOR NAME   print "attr SELECTOR NAME: <its attribute>"
  screenshot PNG       save what the window shows as PNG (the docs' images)

Printed besides: "problem: ..." for every console message, uncaught
exception, CSP violation or failed load of the page, and for every request
it made to anything but file: or data: URLs. Exit status 0 when the page
loaded and every action found its element, 1 otherwise (the reason on
stderr), 2 on bad usage. Python's standard library only.
"""

import base64
import json
import os
import subprocess
import sys
import time

TIMEOUT_S = 45


class Browser:
    def __init__(self, program, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire():
            # The protocol's fds: the browser reads commands on 3 and
            # writes replies and events on 4 (copied above both first, as
            # either pipe may be 3 or 4 here); subprocess closes the rest
            # after this runs, so pass_fds names 3 and 4.
            high_r = os.dup(to_child_r)
            high_w = os.dup(from_child_w)
            while high_r <= 4 or high_w <= 4:
                high_r, high_w = os.dup(high_r), os.dup(high_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        argv = [program, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--mute-audio",
                # a name that leaks out of the page resolves nowhere
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--window-size=1280,900",
                "--user-data-dir=" + profile,
                "--remote-debugging-pipe", "about:blank"]
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, preexec_fn=wire,
                pass_fds=(3, 4))
        except OSError as e:
            sys.exit("cannot run the browser '%s': %s (the dashboard test "
                     "needs headless Chromium: apt-get install chromium, "
                     "or set BENCHGATE_CHROMIUM)" % (program, e))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT_S

    def _read_message(self):
        while b"\0" not in self.buffer:
            if time.monotonic() > self.deadline:
                raise TimeoutError("the browser did not answer in %d s"
                                   % TIMEOUT_S)
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise EOFError("the browser closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        want = self.next_id
        while True:
            reply = self._read_message()
            if reply.get("id") == want:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            if reply.get("method") == "Page.javascriptDialogOpening":
                # alert() would block the page: record and dismiss it
                self.next_id += 1
                os.write(self.to_child, json.dumps({
                    "id": self.next_id,
                    "method": "Page.handleJavaScriptDialog",
                    "sessionId": reply.get("sessionId"),
                    "params": {"accept": False}}).encode() + b"\0")
            self.events.append(reply)

    def wait_event(self, method):
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                del self.events[i]
                return event
        while True:
            event = self._read_message()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def close(self):
        try:
            self.call("Browser.close")
        except (EOFError, RuntimeError, OSError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def problems_of(events, page_url):
    out = []
    for event in events:
        method = event.get("method")
        params = event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            args = [a.get("value", a.get("description", ""))
                    for a in params.get("args", [])]
            out.append("console %s: %s" % (params.get("type"),
                                           " ".join(map(str, args))))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            exc = details.get("exception", {})
            out.append("exception: %s" % exc.get("description",
                                                 details.get("text")))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            out.append("log %s/%s: %s" % (entry.get("source"),
                                          entry.get("level"),
                                          entry.get("text")))
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith(("file:", "data:")):
                out.append("request: %s" % url)
        elif method == "Page.javascriptDialogOpening":
            out.append("dialog: %s" % params.get("message"))
        elif method == "Network.loadingFailed":
            out.append("failed load: %s" % params.get("errorText"))
    return out


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    program, profile, path, actions = argv[1], argv[2], argv[3], argv[4:]
    url = "file://" + os.path.abspath(path)
    browser = Browser(program, profile)
    status = 0
    try:
        target = browser.call("Target.createTarget", url="about:blank")
        session = browser.call("Target.attachToTarget",
                               targetId=target["targetId"],
                               flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(domain + ".enable", session)
        browser.call("Page.navigate", session, url=url)
        browser.wait_event("Page.loadEventFired")

        def evaluate(expression):
            result = browser.call("Runtime.evaluate", session,
                                  expression=expression,
                                  returnByValue=True)
            if "exceptionDetails" in result:
                raise RuntimeError("cannot evaluate %s: %s"
                                   % (expression, result["exceptionDetails"]))
            return result["result"].get("value")

        def centre(selector):
            box = evaluate(
                "(function(){var e=document.querySelector(%s);"
                "if(!e)return null;e.scrollIntoView({block:'center'});"
                "var r=e.getBoundingClientRect();"
                "return [r.left+r.width/2,r.top+r.height/2]})()"
                % json.dumps(selector))
            if box is None:
                raise LookupError("no element matches %s" % selector)
            return box

        def mouse(kind, xy, buttons=0, button="none"):
            browser.call("Input.dispatchMouseEvent", session, type=kind,
                         x=xy[0], y=xy[1], button=button, buttons=buttons,
                         clickCount=1 if button != "none" else 0)

        i = 0
        while i < len(actions):
            action = actions[i]
            if action == "hover":
                mouse("mouseMoved", centre(actions[i + 1]))
                i += 2
            elif action == "click":
                xy = centre(actions[i + 1])
                mouse("mouseMoved", xy)
                mouse("mousePressed", xy, 1, "left")
                mouse("mouseReleased", xy, 0, "left")
                i += 2
            elif action == "drag":
                a, b = centre(actions[i + 1]), centre(actions[i + 2])
                mouse("mouseMoved", a)
                mouse("mousePressed", a, 1, "left")
                for step in range(1, 6):
                    mouse("mouseMoved", [a[0] + (b[0] - a[0]) * step / 5,
                                         a[1] + (b[1] - a[1]) * step / 5], 1)
                mouse("mouseReleased", b, 0, "left")
                i += 3
            elif action == "text":
                value = evaluate("(function(){var e=document.querySelector("
                                 "%s);return e?e.textContent:null})()"
                                 % json.dumps(actions[i + 1]))
                if value is None:
                    raise LookupError("no element matches %s" % actions[i + 1])
                print("text %s: %s" % (actions[i + 1],
                                       " ".join(value.split())))
                i += 2
            elif action in ("count", "shown"):
                value = evaluate(
                    "Array.prototype.filter.call(document.querySelectorAll("
                    "%s),function(e){return %s||getComputedStyle(e).display"
                    "!='none'}).length" % (json.dumps(actions[i + 1]),
                                           json.dumps(action == "count")))
                print("%s %s: %d" % (action, actions[i + 1], value))
                i += 2
            elif action == "attr":
                value = evaluate("(function(){var e=document.querySelector("
                                 "%s);return e?e.getAttribute(%s):null})()"
                                 % (json.dumps(actions[i + 1]),
                                    json.dumps(actions[i + 2])))
                print("attr %s %s: %s" % (actions[i + 1], actions[i + 2],
                                          value))
                i += 3
            elif action == "screenshot":
                shot = browser.call("Page.captureScreenshot", session,
                                    format="png")
                with open(actions[i + 1], "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                i += 2
            else:
                sys.stderr.write("unknown action %r\n" % action)
                return 2
        # Let late events (a CSP report, a lazy load) arrive.
        browser.call("Runtime.evaluate", session, awaitPromise=True,
                     expression="new Promise(function(r){"
                     "setTimeout(r,200)})")
        for line in problems_of(browser.events, url):
            print("problem: " + line)
    except (LookupError, RuntimeError, EOFError, TimeoutError,
            IndexError) as e:
        sys.stderr.write("browse_page.py: %s\n" % e)
        status = 1
    finally:
        browser.close()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
