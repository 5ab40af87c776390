#!/usr/bin/env python3
"""Take the README's pictures: start the app, drive Chromium at projector size (1280×720), save under docs/.

    python3 scripts/readme_screenshots.py

Needs the dev requirements and Debian's chromium (scripts/setup_system.sh installs it).
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
IDLE = "[data-testid='stApp'][data-test-connection-state='CONNECTED'][data-test-script-state='notRunning']"

#: file name -> (URL path and query, keys pressed once the page is idle, what to wait for before the shot)
SHOTS = {
    "screenshot-playground.png": ("/playground?example=scalar&classroom=1", ["ArrowRight"] * 5, "g.edge.flowing"),
    "screenshot-circuit.png": ("/playground?example=cs231n-sigmoid&classroom=1&style=circuit",
                               ["ArrowRight"] * 4, "g.node.current"),
    "screenshot-playground-ko.png": ("/playground?example=scalar&classroom=1&lang=ko", ["ArrowRight"] * 5,
                                     "g.edge.flowing"),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.address",
         "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.monotonic() > deadline:
                    print("the app did not start", file=sys.stderr)
                    return 1
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--no-sandbox", "--headless=new", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            for name, (path, keys, ready) in SHOTS.items():
                page.goto(f"http://127.0.0.1:{port}{path}")
                page.wait_for_selector(IDLE, state="attached", timeout=120_000)
                page.wait_for_selector("svg g.node", timeout=120_000)
                for key in keys:
                    page.keyboard.press(key)
                    page.wait_for_timeout(250)
                page.wait_for_selector(ready, state="attached", timeout=30_000)
                page.wait_for_timeout(800)
                page.screenshot(path=str(DOCS / name))
                print(DOCS / name)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
