#!/usr/bin/env python3
"""The gallery's End and Home keys in headless Chromium: the End key asks the server for the
last item by position (GET /api/items?offset=N&limit=1) when the end of the order is not loaded.

  end_key.py BINARY DB [PORT]

Serves DB (an SQLite catalog or a postgres:// URL) with BINARY, opens the gallery at its top
(1280 x 900), focuses the grid, then three rounds of End (until the last item has the focus) and
Home (until the first has); prints each round's times. The first End is the one that asks.
"""
import json, shutil, subprocess, sys, time, urllib.request
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

binary, db = sys.argv[1], sys.argv[2]
port = sys.argv[3] if len(sys.argv) > 3 else "18160"
server = subprocess.Popen([binary, "serve", "--db", db, "--port", port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
base = f"http://127.0.0.1:{port}"
for _ in range(200):
    try:
        urllib.request.urlopen(base + "/api/health"); break
    except Exception:
        time.sleep(0.05)
total = json.load(urllib.request.urlopen(base + "/api/items?limit=0"))["total"]
options = Options()
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]:
    options.add_argument(a)
browser = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
def wait(script, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if browser.execute_script("return " + script): return
        time.sleep(0.005)
    raise TimeoutError(script)
try:
    browser.get(base + "/")
    wait("window.catalogGallery && document.querySelector('[data-item-id]') !== null")
    browser.execute_script("document.getElementById('scroller').focus()")
    for round in range(3):
        t = time.time()
        ActionChains(browser).send_keys(Keys.END).perform()
        wait(f"document.activeElement?.dataset.index === '{total - 1}'")
        end_ms = 1000 * (time.time() - t)
        t = time.time()
        ActionChains(browser).send_keys(Keys.HOME).perform()
        wait("document.activeElement?.dataset.index === '0'")
        print(f"End key to item {total - 1}: {end_ms:.0f} ms; Home: {1000 * (time.time() - t):.0f} ms")
finally:
    browser.quit()
    server.terminate()
