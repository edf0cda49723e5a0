#!/usr/bin/env python3
"""The web gallery measured in headless Chromium (issue #11), for scripts/gallery.sh.

  gallery_bench.py URL RUNS [first]

Prints, for the catalog served at URL (1280 x 900 window, 5 columns):
  - first screen: from navigation to every tile on screen shown with its image loaded, on a
    fresh page with the browser's cache off (a never-seen configuration's first visit is
    measured by the caller, which drops the stored layouts before it);
  - the same requests from Python, one after the other (the server's part of it);
  - jumps: the scrollbar moved to the middle and to the end, until that screen's bands are
    there and its tiles placed (the imported items' images are web addresses no server answers
    here, so their loading is not waited for; the first screen's thumbnails are);
  - ten seconds of continuous scrolling (30 and 120 pixels a frame): long tasks over 50 ms,
    the most item elements on the page, frames whose bands had not arrived yet.
"""
import json
import shutil
import statistics
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

FIRST_SCREEN = """
const done = arguments[arguments.length - 1];
function check() {
  const plane = document.getElementById('plane');
  if (plane && plane.dataset.state === 'complete' && plane.dataset.pendingImages === '0'
      && document.querySelectorAll('[data-item-id]').length > 0) done(performance.now());
  else requestAnimationFrame(check);
}
check();
"""

JUMP = """
const [fraction, done] = arguments;
const scroller = document.getElementById('scroller');
const gallery = window.catalogGallery;
const start = performance.now();
scroller.scrollTop = fraction * (scroller.scrollHeight - scroller.clientHeight);
function check() {
  const plane = document.getElementById('plane');
  if (gallery.scroller.physical === scroller.scrollTop && Math.abs(Number(plane.dataset.top) - gallery.scroller.top) < 1
      && plane.dataset.state === 'complete') done(performance.now() - start);
  else requestAnimationFrame(check);
}
requestAnimationFrame(check);
"""

SCROLL = """
const [step, seconds, done] = arguments;
const scroller = document.getElementById('scroller');
const plane = document.getElementById('plane');
const longTasks = [];
const observer = new PerformanceObserver((list) => { for (const entry of list.getEntries()) longTasks.push(entry.duration); });
observer.observe({ type: 'longtask' });
let most = 0, frames = 0, missing = 0, last = performance.now(), worstGap = 0;
const start = last, top = window.catalogGallery.scroller.top;
function frame(now) {
  worstGap = Math.max(worstGap, now - last);
  last = now;
  frames += 1;
  if (plane.dataset.state !== 'complete') missing += 1;
  most = Math.max(most, plane.querySelectorAll('[data-item-id]').length);
  scroller.scrollTop += step;
  if (now - start < seconds * 1000) requestAnimationFrame(frame);
  else setTimeout(() => { observer.disconnect(); done({ longTasks, most, frames, missing, worstGap,
                                                         moved: window.catalogGallery.scroller.top - top }); }, 100);
}
requestAnimationFrame(frame);
"""


def browser():
    options = Options()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--force-device-scale-factor=1"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(300)
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    return driver


def summary(values):
    values = sorted(values)
    return f"median {statistics.median(values):.0f} ms (min {values[0]:.0f}, max {values[-1]:.0f})"


def server_floor(url, driver):
    """The page band and the first screen's thumbnails, fetched one after the other from
    Python: what the server spends on a first screen."""
    state = driver.execute_script("const p = document.getElementById('plane').dataset; return [p.width, p.cols];")
    sources = driver.execute_script("return [...document.querySelectorAll('[data-item-id] img')].map((i) => i.currentSrc).filter((s) => s);")
    start = time.perf_counter()
    with urllib.request.urlopen(f"{url}api/page?width={state[0]}&cols={state[1]}&style=waterfall&sort=date&offset=0&height=2048") as response:
        response.read()
    for source in sources:
        with urllib.request.urlopen(source) as response:
            response.read()
    return (time.perf_counter() - start) * 1000, len(sources)


def main():
    url, runs = sys.argv[1], int(sys.argv[2])
    driver = browser()
    try:
        if sys.argv[3:] == ["first"]:  # one visit of a configuration the catalog has not stored
            driver.get(url)
            print(f"first screen (never-seen configuration: computed and stored)\t{driver.execute_async_script(FIRST_SCREEN):.0f} ms")
            return
        first = []
        for _ in range(runs):
            driver.get("about:blank")
            driver.get(url)
            first.append(driver.execute_async_script(FIRST_SCREEN))
        floor, images = server_floor(url, driver)
        print(f"first screen (stored layout, cache off)\t{summary(first)}\t{images} thumbnails on screen")
        print(f"the same requests from Python, one at a time\t{floor:.0f} ms")
        for name, fraction in (("middle", 0.5), ("end", 1.0)):
            times = []
            for _ in range(runs):
                driver.execute_async_script(JUMP, 0)
                times.append(driver.execute_async_script(JUMP, fraction))
            print(f"jump to the {name}\t{summary(times)}")
        for step in (30, 120):
            driver.execute_async_script(JUMP, 0.3)
            result = driver.execute_async_script(SCROLL, step, 10)
            long_tasks = result["longTasks"]
            print(f"scrolling 10 s at {step} px a frame\t{len(long_tasks)} long tasks"
                  f"{' (longest %.0f ms)' % max(long_tasks) if long_tasks else ''}\t{result['most']} elements at most"
                  f"\t{result['frames']} frames, {result['missing']} with a band still loading, longest frame {result['worstGap']:.0f} ms"
                  f"\tmoved {result['moved']:.0f} points")
        print(json.dumps({"first": first}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
