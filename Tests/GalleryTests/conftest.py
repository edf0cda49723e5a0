"""The web gallery in a real browser: Debian's Chromium driven by selenium, against the real
`catalog serve` on a catalog of 1,000,000 imported items plus a folder of real JPEGs scanned
into it. Run by scripts/gallery-check (part of scripts/test); screenshots of every state go to
$GALLERY_ARTIFACTS (default .build/gallery-artifacts).
"""
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

REPOSITORY = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("CATALOG_BINARY", REPOSITORY / ".build/debug/catalog"))
IMPORTED = int(os.environ.get("GALLERY_ITEMS", "1000000"))
PHOTOS = 40
UNREACHABLE = "http://127.0.0.1:9/pin.jpg"  # the discard port: nothing listens
ARTIFACTS = Path(os.environ.get("GALLERY_ARTIFACTS", REPOSITORY / ".build/gallery-artifacts"))


def write_photos(folder, count, seed=5, prefix="photo"):
    """Real JPEGs of several sizes and aspect ratios: gradients with discs, so screenshots and
    thumbnails show something."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        width = rng.choice([480, 640, 800, 960])
        height = int(width * rng.choice([0.56, 0.66, 0.75, 1.0, 1.33, 1.5, 1.77]))
        top = [rng.randint(30, 230) for _ in range(3)]
        bottom = [rng.randint(30, 230) for _ in range(3)]
        image = Image.new("RGB", (width, height))
        draw = ImageDraw.Draw(image)
        for y in range(height):
            t = y / height
            draw.line([(0, y), (width, y)], fill=tuple(int(top[k] * (1 - t) + bottom[k] * t) for k in range(3)))
        for _ in range(5):
            radius = rng.randint(width // 12, width // 4)
            x, y = rng.randint(0, width), rng.randint(0, height)
            draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=tuple(rng.randint(0, 255) for _ in range(3)))
        path = folder / f"{prefix}-{index:02d}.jpg"
        image.save(path, quality=85)
        paths.append(path)
    return paths


def catalog(*arguments, check=True):
    return subprocess.run([str(BINARY), *map(str, arguments)], check=check, capture_output=True, text=True)


@pytest.fixture(scope="session")
def workspace():
    folder = Path(tempfile.mkdtemp(prefix="catalog-gallery-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def library(workspace):
    """A catalog of IMPORTED imported items (some with titles, none with a reachable url) and
    PHOTOS real images scanned from a folder (the newest, so the first screen shows them)."""
    database = workspace / "gallery.sqlite"
    rows = workspace / "pins.csv"
    rng = random.Random(11)
    with rows.open("w") as out:
        # The oldest item (the last one) has a web address, which no server answers here.
        out.write(f"key,width,height,date,title,url\npin-web,400,300,2001-01-01T00:00:00,Web pin,{UNREACHABLE}\n")
        for index in range(IMPORTED - 1):
            title = f"Pin {index}" if index % 3 else ""
            out.write(f"pin-{index:07d},{rng.randint(200, 4000)},{rng.randint(200, 4000)},"
                      f"20{rng.randint(5, 23):02d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00,{title},\n")
    catalog("import", "--db", database, rows)
    photos = workspace / "photos"
    # Ten seconds apart, within the last hour: the newest first in a fixed order, not the order
    # of files written within one second (which varies from run to run).
    for index, path in enumerate(write_photos(photos, PHOTOS)):
        stamp = time.time() - 3600 + 10 * index
        os.utime(path, (stamp, stamp))
    catalog("scan", "--db", database, photos)
    return {"database": database, "photos": photos, "count": IMPORTED + PHOTOS}


@pytest.fixture(scope="session")
def server(library, workspace):
    process = subprocess.Popen(
        [str(BINARY), "serve", "--db", str(library["database"]), "--port", "0", "--quiet",
         "--thumbnail-cache", str(workspace / "thumbnails")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    assert line.startswith("listening on http://"), f"the server did not start: {line!r} {process.stderr.read() if process.poll() is not None else ''}"
    url = line.removeprefix("listening on ")
    yield url
    process.terminate()
    assert process.wait(timeout=30) == 0


@pytest.fixture(scope="session")
def driver():
    options = Options()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--force-device-scale-factor=1", "--lang=en-US"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    browser.set_script_timeout(60)
    yield browser
    browser.quit()


@pytest.fixture
def browser(driver, server):
    """The browser at a blank page, 1280 x 900, light scheme; its console errors fail the test."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    driver.set_window_size(1280, 900)
    driver.get("about:blank")
    driver.get_log("browser")  # drop what came before
    yield driver
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and UNREACHABLE not in entry["message"]]
    assert not errors, f"console errors: {errors}"


def api(server, path):
    with urllib.request.urlopen(server.rstrip("/") + path, timeout=120) as response:
        return json.load(response)


def screenshot(browser, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))


# What the gallery and its carousel were doing, said when a wait times out (a CI log then tells
# which part of a condition never came).
SITUATION = """(() => {
    const g = window.catalogGallery, c = g?.carousel, root = document.getElementById('carousel');
    const pick = (object, names) => object ? Object.fromEntries(names.map((name) => [name, object[name]])) : null;
    return JSON.stringify({
        hash: location.hash, window: [innerWidth, innerHeight], status: document.getElementById('status')?.textContent,
        gallery: pick(g, ['generation', 'itemCount', 'relayoutPending', 'layoutRequest']),
        plane: document.getElementById('plane')?.dataset.state,
        carousel: c && { hidden: root.hidden, ...root.dataset, top: c.scroller.top, maxTop: c.scroller.maxTop, pad: c.pad,
            width: c.element.clientWidth, height: c.element.clientHeight, tiles: c.tiles.size, bands: [...c.bands.keys()],
            ...pick(c, ['animating', 'stepping', 'queuedSteps', 'layingOut', 'layoutRequest', 'snapRequest', 'wheelTravel']) },
        held: window.heldRequests?.length ?? null,
    });
})()"""


def wait(browser, script, timeout=90, message=""):
    """Waits until `script` (a JavaScript expression) is truthy; returns its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = browser.execute_script(f"return ({script});")
        if value:
            return value
        if time.monotonic() > deadline:
            try:
                situation = browser.execute_script(f"return {SITUATION};")
            except Exception as error:  # the page itself is gone
                situation = f"(not known: {error})"
            raise AssertionError(f"timed out waiting for {script} {message}\nthe page then: {situation}")
        time.sleep(0.05)
