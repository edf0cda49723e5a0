"""What the gallery tests share: the gallery's state as the page shows it, and the steps many tests take."""
import contextlib
import os
import socket
import subprocess
import urllib.parse
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import BINARY, api, catalog, wait, write_photos


# The gallery keeps at most this many item elements, whatever the catalog (main.js MOST_TILES).
MOST_TILES = 1200


STATE = """
const plane = document.getElementById('plane');
const scroller = document.getElementById('scroller');
const box = scroller.getBoundingClientRect();
const gallery = window.catalogGallery;
const top = gallery.scroller.top;
return {
  state: plane.dataset.state, top, cols: Number(plane.dataset.cols), width: Number(plane.dataset.width),
  style: plane.dataset.style, sort: plane.dataset.sort, itemCount: Number(plane.dataset.itemCount),
  rowHeight: Number(plane.dataset.rowHeight),
  generation: Number(plane.dataset.generation), contentHeight: gallery.scroller.contentHeight,
  viewportHeight: scroller.clientHeight, scrollTop: scroller.scrollTop, scrollHeight: scroller.scrollHeight,
  pendingImages: Number(plane.dataset.pendingImages), hash: location.hash,
  tiles: [...document.querySelectorAll('[data-item-id]')].map((element) => {
    const r = element.getBoundingClientRect();
    return { id: Number(element.dataset.itemId), index: Number(element.dataset.index), x: r.left - box.left,
             y: r.top - box.top + top, screenY: r.top - box.top, width: r.width, height: r.height,
             label: element.getAttribute('aria-label'), alt: element.querySelector('img').alt,
             src: element.querySelector('img').currentSrc };
  }),
};
"""


READY = "document.getElementById('plane')?.dataset.state === 'complete'"


def state(browser):
    return browser.execute_script(STATE)


def visible(snapshot):
    return [t for t in snapshot["tiles"] if t["screenY"] < snapshot["viewportHeight"] and t["screenY"] + t["height"] > 0]


def top_of(snapshot):
    """The item at the top of the view as the gallery names it: the highest top in view, then the leftmost."""
    starting = [t for t in visible(snapshot) if t["y"] >= snapshot["top"] - 0.5]
    return min(starting or visible(snapshot), key=lambda t: (t["y"], t["x"]))


def open_gallery(browser, server, fragment=""):
    browser.get("about:blank")  # a new page load, even where only the fragment differs
    browser.get(server + fragment)
    wait(browser, READY)
    return state(browser)


def native_scroll(browser, fraction):
    """Moves the scrollbar, as dragging its thumb does."""
    browser.execute_script(
        "const s = document.getElementById('scroller'); s.scrollTop = arguments[0] * (s.scrollHeight - s.clientHeight);", fraction)
    wait(browser, f"window.catalogGallery.scroller.physical === document.getElementById('scroller').scrollTop && {READY}")


def page(server, snapshot, **extra):
    parameters = {"width": snapshot["width"], "cols": snapshot["cols"], "style": snapshot["style"], "sort": snapshot["sort"], **extra}
    if snapshot["style"] == "mixed":
        parameters["span-every"] = snapshot["cols"] + 1  # the gallery spans one item after every full row
    if snapshot["style"] == "justified":
        parameters["row-height"] = snapshot["rowHeight"]  # the gallery zooms justified rows by their height
    return api(server, "/api/page?" + urllib.parse.urlencode(parameters))


def at_the_top(snapshot):
    """Where a page key leaves the focus: the highest tile in view (then the leftmost) that shows
    at least half of what the view can show of it."""
    top, viewport = snapshot["top"], snapshot["viewportHeight"]
    shown = lambda t: min(top + viewport, t["y"] + t["height"]) - max(top, t["y"])
    return min((t for t in snapshot["tiles"] if shown(t) >= min(t["height"], viewport) / 2),
               key=lambda t: (max(top, t["y"]), t["x"]))


FOCUSED = "Number(document.activeElement.closest?.('.tile')?.dataset.itemId)"


CAROUSEL_CENTRED = """(() => { const root = document.getElementById('carousel');
    const tile = document.querySelector(`.carousel-tile[data-item-id='${root.dataset.centred}']`);
    if (!tile || window.catalogGallery.carousel.animating) return false;
    const r = tile.getBoundingClientRect(), s = document.getElementById('carousel-scroller').getBoundingClientRect();
    return Math.abs(r.left + r.width / 2 - (s.left + s.width / 2)) < 1.5; })()"""


def free_port():
    """A loopback port nothing listens on: a server that stops is started again on it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def scanned_in_order(workspace, name, count, seed):
    """A catalog `name`.sqlite of `count` photos scanned from `name`-photos, dated a day apart,
    newest first: the order is the files' order. Returns the catalog and the photos' paths."""
    database = workspace / f"{name}.sqlite"
    paths = write_photos(workspace / f"{name}-photos", count, seed=seed, prefix=name)
    for index, path in enumerate(paths):
        os.utime(path, (1_700_000_000 - index * 86_400, 1_700_000_000 - index * 86_400))
    catalog("scan", "--db", database, workspace / f"{name}-photos")
    return database, paths


@contextlib.contextmanager
def shown(driver, database, thumbnails):
    """`catalog serve` on `database`, its gallery open in `driver` at 1280 x 900; yields its URL."""
    process, url = start_server(database, free_port(), thumbnails)
    try:
        driver.set_window_size(1280, 900)
        driver.get("about:blank")
        driver.get(url)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def start_server(database, port, thumbnails):
    process = subprocess.Popen([str(BINARY), "serve", "--db", str(database), "--port", str(port), "--quiet", "--thumbnail-cache", str(thumbnails)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    assert line.startswith("listening on http://"), line
    return process, line.removeprefix("listening on ")


def open_carousel_from_the_viewer(browser, server):
    """The carousel opened from the viewer of the last image in view (far enough into the order
    that the row can centre it: the first ones sit at its start), once it is centred; returns it."""
    snapshot = open_gallery(browser, server)
    first = max(visible(snapshot), key=lambda t: t["index"])
    browser.find_element(By.CSS_SELECTOR, f".tile[data-item-id='{first['id']}']").click()
    wait(browser, "document.getElementById('viewer').open")
    browser.find_element(By.ID, "viewer-carousel").click()
    wait(browser, f"!document.getElementById('carousel').hidden && document.getElementById('carousel').dataset.state === 'complete'"
                  f" && document.getElementById('carousel').dataset.centred === '{first['id']}' && !window.catalogGallery.carousel.animating")
    return first


def focus_the_last_image_in_view(browser, server):
    """Opens the gallery, and the viewer on the last image in view, then closes it: the focus is on
    that image's tile. Returns it."""
    snapshot = open_gallery(browser, server)
    first = max(visible(snapshot), key=lambda t: t["index"])
    browser.find_element(By.CSS_SELECTOR, f".tile[data-item-id='{first['id']}']").click()
    wait(browser, "document.getElementById('viewer').open")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, f"!document.getElementById('viewer').open && document.activeElement.dataset.itemId === '{first['id']}'")
    return first


CAROUSEL_SETTLED = "!document.getElementById('carousel').hidden && document.getElementById('carousel').dataset.state === 'complete' && !window.catalogGallery.carousel.animating"


def hold_requests(browser, only="true"):
    """The gallery's API requests (every one goes through `fetch`) wait, sent to no one, until
    `release_requests`: a network exactly as slow as the test needs, whatever the machine's load.
    (Chromium's latency emulation ends on its own, sometimes before a loaded machine has looked.)
    `only`, a JavaScript expression of `url`, holds only the requests it is true for."""
    browser.execute_script(f"""
        if (window.heldRequests) return;
        const send = window.fetch;
        const held = (url) => ({only});
        window.heldRequests = [];
        window.releaseRequests = () => {{
            window.fetch = send;
            const waiting = window.heldRequests ?? [];
            window.heldRequests = null;
            waiting.forEach((go) => go());
        }};
        window.fetch = (...request) => !held(String(request[0])) ? send(...request) : new Promise((resolve, reject) =>
            window.heldRequests.push(() => send(...request).then(resolve, reject)));""")


def release_requests(browser):
    """Sends the requests `hold_requests` kept, and those to come, as usual."""
    browser.execute_script("window.releaseRequests?.()")


def slow_network(browser, latency_ms):
    """Every request takes `latency_ms` longer (Chromium's network emulation); 0 ends it."""
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": latency_ms,
                                                                  "downloadThroughput": -1, "uploadThroughput": -1})
