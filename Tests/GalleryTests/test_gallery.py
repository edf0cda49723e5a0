"""The gallery at / in Chromium: what a person sees and does, checked against /api/page."""
import contextlib
import io
import os
import random
import shutil
import socket
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

from PIL import Image
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import BINARY, UNREACHABLE, api, catalog, screenshot, wait, write_photos

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


def test_the_first_screen_shows_the_frames_of_api_page(browser, server, library):
    snapshot = open_gallery(browser, server)
    assert snapshot["cols"] == 5, "1280 points wide: 5 columns of about 236"
    assert snapshot["itemCount"] == library["count"]
    expected = page(server, snapshot, offset=0, height=snapshot["viewportHeight"])
    shown = {t["id"]: t for t in visible(snapshot)}
    assert shown and len(shown) == len(expected["items"])
    for item in expected["items"]:
        tile = shown[item["id"]]
        frame = item["frame"]
        assert tile["index"] == item["index"]
        for key in ("x", "y", "width", "height"):
            assert abs(tile[key] - frame[key]) < 0.05, (key, tile, frame)
    # Alternative text: the title, else the file name.
    for item in expected["items"]:
        name = item["title"] or item["path"].rsplit("/", 1)[-1]
        assert shown[item["id"]]["alt"] == name and shown[item["id"]]["label"] == name
    wait(browser, "document.getElementById('plane').dataset.pendingImages === '0'")
    screenshot(browser, "01-first-screen")


def test_scanned_thumbnails_load_at_the_size_the_route_makes(browser, server):
    snapshot = open_gallery(browser, server)
    wait(browser, "document.getElementById('plane').dataset.pendingImages === '0'")
    # The pixels the browser decoded for each tile (naturalWidth under a srcset is in CSS pixels,
    # so each chosen source is decoded again on its own).
    images = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const shown = [...document.querySelectorAll('[data-item-id] img')].filter((img) => img.currentSrc.includes('/thumbnail'));
        Promise.all(shown.map((img) => new Promise((resolve) => {
          const copy = new Image();
          copy.onload = () => resolve({ src: img.currentSrc, width: copy.naturalWidth, height: copy.naturalHeight, complete: img.complete });
          copy.onerror = () => resolve({ src: img.currentSrc, width: 0, height: 0, complete: img.complete });
          copy.src = img.currentSrc;
        }))).then(done);""")
    assert len(images) >= 10
    for image in images:
        assert image["complete"] and image["width"] > 0
        with urllib.request.urlopen(image["src"]) as response:
            assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            made = Image.open(io.BytesIO(response.read()))
        assert (image["width"], image["height"]) == made.size
    # Only what is on screen (and a quarter screen beyond) was asked for.
    asked = browser.execute_script("return performance.getEntriesByType('resource').filter((e) => e.name.includes('/thumbnail')).length")
    assert asked <= len([t for t in snapshot["tiles"] if t["screenY"] < snapshot["viewportHeight"] * 1.25])


def test_scrolling_to_the_very_end_keeps_the_element_count_bounded(browser, server, library):
    snapshot = open_gallery(browser, server)
    assert snapshot["contentHeight"] > snapshot["scrollHeight"], "a million items is taller than a browser's element"
    most = 0
    for step in range(1, 11):
        native_scroll(browser, step / 10)
        snapshot = state(browser)
        most = max(most, len(snapshot["tiles"]))
        # The scrollbar's position is the place in the catalog.
        share = snapshot["scrollTop"] / (snapshot["scrollHeight"] - snapshot["viewportHeight"])
        assert abs(share - snapshot["top"] / (snapshot["contentHeight"] - snapshot["viewportHeight"])) < 1e-3
        assert visible(snapshot), f"nothing on screen at {step / 10:.0%}"
    assert most <= MOST_TILES
    # At the very end, the screen is the layout's last screen (the last item itself may end
    # above it, in a shorter column: the End key test reaches it).
    assert abs(snapshot["top"] - (snapshot["contentHeight"] - snapshot["viewportHeight"])) < 1
    expected = page(server, snapshot, offset=snapshot["top"], height=snapshot["viewportHeight"])
    assert {t["id"] for t in visible(snapshot)} == {i["id"] for i in expected["items"]}
    assert max(t["index"] for t in visible(snapshot)) > library["count"] - 100
    screenshot(browser, "02-the-end")
    # The wheel, where the content is taller than the scroller: the content moves by what the
    # wheel asks, not by the scrollbar's ratio.
    native_scroll(browser, 0.5)
    before = state(browser)["top"]
    ActionChains(browser).scroll_from_origin(ScrollOrigin.from_viewport(600, 450), 0, 300).perform()
    wait(browser, f"Math.abs(window.catalogGallery.scroller.top - {before} - 300) < 1 && {READY}")


def test_end_and_home_keys_reach_both_ends(browser, server, library):
    open_gallery(browser, server)
    browser.execute_script("document.getElementById('scroller').focus()")
    ActionChains(browser).send_keys(Keys.END).perform()
    wait(browser, f"document.activeElement?.dataset.index === '{library['count'] - 1}' && {READY}")
    snapshot = state(browser)
    last = next(t for t in visible(snapshot) if t["index"] == library["count"] - 1)
    assert 0 <= last["screenY"] and last["screenY"] + last["height"] <= snapshot["viewportHeight"], "in view"
    assert snapshot["top"] > snapshot["contentHeight"] - 10 * snapshot["viewportHeight"], "near the end"
    ActionChains(browser).send_keys(Keys.HOME).perform()
    wait(browser, f"document.activeElement?.dataset.index === '0' && {READY}")
    assert state(browser)["top"] == 0


def test_resizing_changes_the_columns_and_keeps_the_top_item_in_view(browser, server):
    open_gallery(browser, server)
    native_scroll(browser, 0.37)
    before = state(browser)
    top_item = top_of(before)
    browser.set_window_size(375, 812)
    wait(browser, f"document.getElementById('plane').dataset.cols === '2' && {READY}")
    after = state(browser)
    assert after["width"] < 375
    assert top_item["id"] in {t["id"] for t in visible(after)}, "the item at the top stays in view"
    screenshot(browser, "03-phone")
    top_item = top_of(after)
    browser.set_window_size(1280, 900)
    wait(browser, f"document.getElementById('plane').dataset.cols === '5' && {READY}")
    assert top_item["id"] in {t["id"] for t in visible(state(browser))}


def test_zoom_keeps_the_item_under_the_pointer(browser, server):
    open_gallery(browser, server)
    native_scroll(browser, 0.61)
    before = state(browser)
    # An item near the middle of the screen, and a point inside it.
    middle = before["viewportHeight"] / 2
    target = min(visible(before), key=lambda t: abs(t["screenY"] + t["height"] / 2 - middle) + abs(t["x"] + t["width"] / 2 - 640))
    element = browser.find_element(By.CSS_SELECTOR, f"[data-item-id='{target['id']}']")
    point_y = target["screenY"] + target["height"] / 2
    ActionChains(browser).key_down(Keys.CONTROL).scroll_from_origin(ScrollOrigin.from_element(element), 0, -120).key_up(Keys.CONTROL).perform()
    wait(browser, f"document.getElementById('plane').dataset.cols === '{before['cols'] - 1}' && {READY}")
    after = {t["id"]: t for t in visible(state(browser))}
    assert target["id"] in after
    tile = after[target["id"]]
    assert tile["screenY"] - 1 <= point_y <= tile["screenY"] + tile["height"] + 1, "the item is still under the pointer vertically"
    assert abs((point_y - tile["screenY"]) / tile["height"] - 0.5) < 0.02, "the same point of the item"
    screenshot(browser, "04-zoomed-in")
    # The buttons zoom too: back out to where it was.
    browser.find_element(By.ID, "zoom-out").click()
    wait(browser, f"document.getElementById('plane').dataset.cols === '{before['cols']}' && {READY}")


def test_a_pinch_on_touch_zooms_in_around_the_fingers(browser, server):
    before = open_gallery(browser, server)
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        box = browser.execute_script("const b = document.getElementById('scroller').getBoundingClientRect(); return [b.left, b.top];")
        y = box[1] + 300

        def touch(kind, spread):
            points = [] if kind == "touchEnd" else [{"x": 640 - spread, "y": y, "id": 1}, {"x": 640 + spread, "y": y, "id": 2}]
            browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", 40)
        for spread in range(45, 100, 5):
            touch("touchMove", spread)
        touch("touchEnd", 0)
        wait(browser, f"Number(document.getElementById('plane').dataset.cols) < {before['cols']} && {READY}")
    finally:
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def test_the_viewer_opens_navigates_and_closes(browser, server):
    snapshot = open_gallery(browser, server)
    first = min(visible(snapshot), key=lambda t: t["index"])
    browser.find_element(By.CSS_SELECTOR, f"[data-item-id='{first['id']}']").click()
    wait(browser, "document.getElementById('viewer').open && document.getElementById('viewer-image').complete"
                  " && document.getElementById('viewer-image').naturalWidth > 0")
    assert browser.execute_script("return document.getElementById('viewer-image').src").endswith(f"/api/items/{first['id']}/original")
    wait(browser, "document.getElementById('viewer-details').textContent.includes('×')")
    assert "view=" in browser.execute_script("return location.hash")
    screenshot(browser, "05-viewer")
    index = first["index"]
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"document.getElementById('viewer').dataset.index === '{index + 1}'")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"document.getElementById('viewer').dataset.index === '{index + 2}'")
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    wait(browser, f"document.getElementById('viewer').dataset.index === '{index + 1}'")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "!document.getElementById('viewer').open && !location.hash.includes('view=')")
    # The browser's back button closes it too, and stays in the gallery.
    browser.find_element(By.CSS_SELECTOR, f"[data-item-id='{first['id']}']").click()
    wait(browser, "document.getElementById('viewer').open")
    browser.back()
    wait(browser, "!document.getElementById('viewer').open")
    assert browser.current_url.startswith(server)
    # Forward opens it again, on the image it showed, in the entry it had.
    gallery = browser.execute_script("return navigation.currentEntry.index")
    browser.forward()
    wait(browser, f"document.getElementById('viewer').open && document.getElementById('viewer').dataset.itemId === '{first['id']}'")
    assert browser.execute_script("return navigation.currentEntry.index") == gallery + 1
    # A reload keeps it open in that entry, and the gallery's place in the address: one Back closes it.
    place = urllib.parse.parse_qs(browser.execute_script("return location.hash").lstrip("#"))["item"]
    browser.refresh()
    wait(browser, f"document.getElementById('viewer').open && document.getElementById('viewer').dataset.itemId === '{first['id']}'")
    assert browser.execute_script("return navigation.currentEntry.index") == gallery + 1, "the reload adds no entry"
    assert urllib.parse.parse_qs(browser.execute_script("return location.hash").lstrip("#")).get("item") == place
    browser.back()
    wait(browser, "!document.getElementById('viewer').open && !history.state?.viewer")
    assert browser.execute_script("return navigation.currentEntry.index") == gallery
    # Two Escapes before the browser has gone back for the first (the events a second press
    # sends, at once): one step back, not two, and the gallery stays.
    browser.find_element(By.CSS_SELECTOR, f"[data-item-id='{first['id']}']").click()
    wait(browser, "document.getElementById('viewer').open && history.state?.viewer !== undefined")
    browser.execute_script("""const dialog = document.getElementById('viewer');
        dialog.dispatchEvent(new Event('cancel', { cancelable: true }));
        dialog.dispatchEvent(new Event('cancel', { cancelable: true }));
        dialog.close();""")
    wait(browser, "!document.getElementById('viewer').open && navigation.transition === null && !history.state?.viewer")
    assert browser.current_url.startswith(server) and browser.execute_script("return navigation.currentEntry.index") == gallery


def test_a_deep_link_restores_its_place(browser, server, library):
    middle = library["count"] // 2
    item = api(server, f"/api/items?offset={middle}&limit=1")["items"][0]
    snapshot = open_gallery(browser, server, f"#item={item['id']}")
    tiles = {t["id"]: t for t in visible(snapshot)}
    assert item["id"] in tiles and abs(tiles[item["id"]]["screenY"]) < 0.5, "the item is at the top"
    wait(browser, f"location.hash.startsWith('#item={item['id']}&cols=5&style=waterfall')")
    screenshot(browser, "06-deep-link")
    # The address shows the same place after a reload, with its configuration.
    native_scroll(browser, 0.25)
    wait(browser, "location.hash.startsWith('#item=') && !location.hash.startsWith('#item=" + str(item["id"]) + "&')")
    browser.execute_script("document.querySelector('#style').value = 'grid'; document.querySelector('#style').dispatchEvent(new Event('change'));")
    wait(browser, f"document.getElementById('plane').dataset.style === 'grid' && {READY}")
    wait(browser, "location.hash.includes('style=grid')")
    before = state(browser)
    top = top_of(before)
    link = before["hash"]
    assert f"item={top['id']}" in link
    browser.refresh()
    wait(browser, f"document.getElementById('plane').dataset.style === 'grid' && {READY}")
    after = state(browser)
    assert after["cols"] == before["cols"]
    assert top["id"] in {t["id"] for t in visible(after)}
    # A fragment typed into the address bar of the open gallery goes there too.
    browser.execute_script(f"location.hash = '#item={item['id']}'")
    wait(browser, f"window.catalogGallery.tiles.tile({item['id']}) !== null && {READY}")
    tile = next(t for t in visible(state(browser)) if t["id"] == item["id"])
    assert abs(tile["screenY"]) < 0.5


def test_a_deep_link_on_a_slow_network_still_writes_its_item_into_the_address(browser, server, library):
    """The address is written once scrolling pauses. Where the tiles' band arrives after that
    pause (every request 800 ms late here), it is written once they are drawn, with the item
    at the top, not without an item."""
    item = api(server, f"/api/items?offset={library['count'] // 3}&limit=1")["items"][0]
    slow = {"offline": False, "latency": 800, "downloadThroughput": -1, "uploadThroughput": -1}
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", slow)
    try:
        snapshot = open_gallery(browser, server, f"#item={item['id']}")
        tiles = {t["id"]: t for t in visible(snapshot)}
        assert item["id"] in tiles and abs(tiles[item["id"]]["screenY"]) < 0.5, "the item is at the top"
        wait(browser, f"location.hash.startsWith('#item={item['id']}&cols=5&style=waterfall')", timeout=30,
             message="(the address was written before the tiles were drawn, and never again)")
    finally:
        browser.execute_cdp_cmd("Network.emulateNetworkConditions", {**slow, "latency": 0})
        browser.execute_cdp_cmd("Network.disable", {})


def test_grid_and_list_styles_from_the_switcher(browser, server):
    open_gallery(browser, server)
    options = browser.execute_script("return [...document.querySelectorAll('#style option')].map((o) => o.value)")
    assert options == ["waterfall", "grid", "list", "mixed", "justified"], "every style /api/page takes but the carousel"
    # The carousel has a button of its own: the arrow keys passing over a switcher option would open it.
    assert browser.find_element(By.ID, "open-carousel").is_displayed()
    for style in ("grid", "list", "mixed", "justified"):
        browser.execute_script(f"document.querySelector('#style').value = '{style}'; document.querySelector('#style').dispatchEvent(new Event('change'));")
        wait(browser, f"document.getElementById('plane').dataset.style === '{style}' && {READY}")
        snapshot = state(browser)
        expected = page(server, snapshot, offset=snapshot["top"], height=snapshot["viewportHeight"])
        assert {t["id"] for t in visible(snapshot)} == {i["id"] for i in expected["items"]}
        if style == "grid":
            assert all(abs(t["width"] - t["height"]) < 0.05 for t in snapshot["tiles"]), "square cells"
        if style == "mixed":
            widths = {round(t["width"]) for t in visible(snapshot)}
            assert len(widths) == 2 and max(widths) > 3 * min(widths), "square cells and items across the width"
        if style == "justified":
            assert browser.find_element(By.ID, "columns").text == f"{round(snapshot['rowHeight'])} px rows", "zoom changes rows, not columns"
            rows = {}
            for t in snapshot["tiles"]:
                rows.setdefault(round(t["y"], 3), []).append(t)
            full = [r for r in rows.values() if min(t["x"] for t in r) < 9 and max(t["x"] + t["width"] for t in r) > snapshot["width"] - 9]
            assert len(full) >= len(rows) - 2, "rows fill the width"
        screenshot(browser, f"07-{style}")


def test_the_keyboard_alone_moves_opens_and_scrolls(browser, server):
    snapshot = open_gallery(browser, server)
    first = min(visible(snapshot), key=lambda t: t["index"])
    # Tab from the toolbar reaches the gallery.
    browser.find_element(By.ID, "zoom-in").send_keys(Keys.TAB)
    assert browser.execute_script("return document.activeElement.id") == "scroller"
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"document.activeElement.dataset.index === '{first['index']}'")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"document.activeElement.dataset.index === '{first['index'] + 1}'")
    focused = state(browser)
    current = next(t for t in focused["tiles"] if t["index"] == first["index"] + 1)
    ActionChains(browser).send_keys(Keys.ARROW_DOWN).perform()
    wait(browser, f"Number(document.activeElement.dataset.index) > {current['index']}")
    below = browser.execute_script("return Number(document.activeElement.dataset.itemId)")
    tile = next(t for t in state(browser)["tiles"] if t["id"] == below)
    assert tile["y"] >= current["y"] + current["height"] and abs(tile["x"] - current["x"]) < 1, "the item below, same column"
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait(browser, f"document.getElementById('viewer').open && document.getElementById('viewer').dataset.itemId === '{below}'")
    # The viewer's close button has the focus: Space or Enter there closes, not steps back.
    assert browser.execute_script("return document.activeElement.id") == "viewer-close"
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, f"!document.getElementById('viewer').open && document.activeElement.dataset.itemId === '{below}'")
    top = state(browser)["top"]
    ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
    wait(browser, f"window.catalogGallery.scroller.top > {top} + 600 && {READY}")
    ActionChains(browser).send_keys(Keys.PAGE_UP).perform()
    wait(browser, f"window.catalogGallery.scroller.top < {top} + 10 && {READY}")


def at_the_top(snapshot):
    """Where a page key leaves the focus: the highest tile in view (then the leftmost) that shows
    at least half of what the view can show of it."""
    top, viewport = snapshot["top"], snapshot["viewportHeight"]
    shown = lambda t: min(top + viewport, t["y"] + t["height"]) - max(top, t["y"])
    return min((t for t in snapshot["tiles"] if shown(t) >= min(t["height"], viewport) / 2),
               key=lambda t: (max(top, t["y"]), t["x"]))


FOCUSED = "Number(document.activeElement.closest?.('.tile')?.dataset.itemId)"


def test_page_down_from_an_image_taller_than_the_window_moves_on(browser, server):
    browser.set_window_size(1280, 500)  # a list's images are taller than the view
    open_gallery(browser, server, "#style=list")
    browser.find_element(By.ID, "scroller").send_keys(Keys.HOME)
    wait(browser, "document.activeElement.dataset.index === '0'")
    for _ in range(3):
        before = state(browser)
        top, viewport = before["top"], before["viewportHeight"]
        tile = next(t for t in before["tiles"] if t["id"] == int(browser.execute_script("return document.activeElement.dataset.itemId")))
        assert tile["height"] > viewport, "the focused image is taller than the view"
        ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
        wait(browser, f"window.catalogGallery.scroller.top > {top} + {viewport} * 0.8 && {READY}")
        # The focus follows to the image at the top, and the view stays where the key put it.
        after = state(browser)
        wait(browser, f"{FOCUSED} === {at_the_top(after)['id']}")
        assert abs(state(browser)["top"] - (top + viewport * 0.9)) < 2
    # An image cut by the top edge that still fills most of the view keeps the focus from the
    # next one, which starts in view but shows a sliver.
    first = browser.execute_script("return window.catalogGallery.bands.find(0)")
    sliver = 30
    wanted = first["frame"]["y"] + first["frame"]["height"] - viewport + sliver
    browser.execute_script("const g = window.catalogGallery; g.scroller.scrollTo(arguments[0]); g.render();", wanted - viewport * 0.9)
    wait(browser, READY)
    ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
    wait(browser, f"Math.abs(window.catalogGallery.scroller.top - {wanted}) < 2 && {READY}")
    after = state(browser)
    second = next(t for t in after["tiles"] if t["index"] == 1)
    assert after["top"] < second["y"] < after["top"] + viewport, "the next image starts in view"
    wait(browser, f"{FOCUSED} === {first['id']}")


CAROUSEL_CENTRED = """(() => { const root = document.getElementById('carousel');
    const tile = document.querySelector(`.carousel-tile[data-item-id='${root.dataset.centred}']`);
    if (!tile || window.catalogGallery.carousel.animating) return false;
    const r = tile.getBoundingClientRect(), s = document.getElementById('carousel-scroller').getBoundingClientRect();
    return Math.abs(r.left + r.width / 2 - (s.left + s.width / 2)) < 1.5; })()"""


def test_a_link_to_the_carousel_opens_it(browser, server, library):
    open_gallery(browser, server, "#style=carousel")
    wait(browser, "!document.getElementById('carousel').hidden && document.getElementById('carousel').dataset.state === 'complete'")
    assert state(browser)["style"] != "carousel", "the gallery behind it keeps a style of its own"
    # At the first image, centred: the row has room before its first image and after its last.
    first, second = api(server, "/api/items?offset=0&limit=2")["items"]
    status = "document.getElementById('carousel-status').textContent"
    wait(browser, f"document.getElementById('carousel').dataset.centred === '{first['id']}' && {CAROUSEL_CENTRED}")
    assert browser.execute_script("return Number(document.getElementById('carousel').dataset.top)") < 0, "the row starts right of the view's left"
    assert browser.execute_script(f"return {status}").endswith(f"1 of {library['count']}")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"document.getElementById('carousel').dataset.centred === '{second['id']}' && {CAROUSEL_CENTRED}")
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    wait(browser, f"document.getElementById('carousel').dataset.centred === '{first['id']}' && {CAROUSEL_CENTRED}")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "document.getElementById('carousel').hidden")
    # The last image, from a link: centred too.
    last = api(server, f"/api/items?offset={library['count'] - 1}&limit=1")["items"][0]
    browser.execute_script(f"location.hash = '#carousel={last['id']}'")
    wait(browser, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{last['id']}' && {CAROUSEL_CENTRED}")
    assert browser.execute_script(f"return {status}").endswith(f"{library['count']} of {library['count']}")
    # A narrower window (a phone turned), then a lower one, whose images are smaller: the same
    # image stays centred, and said.
    height = "parseFloat(getComputedStyle(document.getElementById('carousel')).getPropertyValue('--item-height'))"
    tall = browser.execute_script(f"return {height}")
    try:
        browser.set_window_size(700, 900)
        wait(browser, f"document.getElementById('carousel-scroller').clientWidth <= 700 && {CAROUSEL_SETTLED} && {CAROUSEL_CENTRED}"
                      f" && document.getElementById('carousel').dataset.centred === '{last['id']}'")
        browser.set_window_size(700, 500)
        wait(browser, f"{height} < {tall} && {CAROUSEL_SETTLED} && {CAROUSEL_CENTRED} && document.getElementById('carousel').dataset.centred === '{last['id']}'")
        assert browser.execute_script(f"return {status}").endswith(f"{library['count']} of {library['count']}")
        screenshot(browser, "12-carousel-resized")
    finally:
        browser.set_window_size(1280, 900)
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "document.getElementById('carousel').hidden")


def test_dark_scheme(browser, server):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    open_gallery(browser, server)
    wait(browser, "document.getElementById('plane').dataset.pendingImages === '0'")
    background = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(18, 18, 20)"
    screenshot(browser, "08-dark")


def test_a_finished_scan_keeps_the_item_at_the_top_in_place(browser, server, library):
    open_gallery(browser, server)
    native_scroll(browser, 0.2)
    before = state(browser)
    top = top_of(before)
    # Another process adds images (the newest: they go first, and everything moves down).
    write_photos(library["photos"], 3, seed=99, prefix="new")
    catalog("scan", "--db", library["database"], library["photos"])
    wait(browser, f"Number(document.getElementById('plane').dataset.generation) > {before['generation']} && {READY}", timeout=30)
    after = state(browser)
    assert after["itemCount"] == before["itemCount"] + 3
    tile = next(t for t in visible(after) if t["id"] == top["id"])
    assert abs(tile["screenY"] - top["screenY"]) < 1, "the item at the top stayed where it was on screen"
    library["count"] += 3


def test_a_removed_image_at_the_top_is_followed_through_events_and_the_change_set(browser, server, library):
    open_gallery(browser, server)
    wait(browser, READY)
    before = state(browser)
    top = top_of(before)
    second = min((t for t in visible(before) if t["id"] != top["id"] and t["y"] >= before["top"] - 0.5),
                 key=lambda t: (t["y"], t["x"]))
    path = api(server, f"/api/items/{top['id']}")["path"]
    assert path.startswith(str(library["photos"])), "the first screen shows the scanned photos"
    # Another process removes the image at the top of the view.
    import os
    os.remove(path)
    catalog("scan", "--db", library["database"], library["photos"])
    # The change set arrived, and the layout of its generation is shown.
    changes = wait(browser, f"window.catalogGallery.lastChanges?.from === {before['generation']} "
                            f"&& Number(document.getElementById('plane').dataset.generation) === window.catalogGallery.lastChanges.to "
                            f"&& {READY} && window.catalogGallery.lastChanges", timeout=30)
    assert not changes["reload"] and [d["id"] for d in changes["deletes"]] == [top["id"]], changes
    assert changes["inserts"] == [] and changes["updates"] == []
    after = state(browser)
    assert after["itemCount"] == before["itemCount"] - 1
    assert top["id"] not in [t["id"] for t in after["tiles"]]
    tile = next(t for t in visible(after) if t["id"] == second["id"])
    assert abs(tile["screenY"] - second["screenY"]) < 1, "the next image held the place"
    library["count"] -= 1


def test_imported_items_show_their_address_else_their_title_or_key(browser, server):
    snapshot = open_gallery(browser, server, "#item=2")
    tile = next(t for t in visible(snapshot) if t["id"] == 2)
    assert tile["src"] == ""
    text = browser.execute_script("return document.querySelector(\"[data-item-id='2'] .label\").textContent")
    assert text == tile["label"] == "pin-0000000", "no title: the key"
    # An http(s) address is the image; one that fails shows the title instead.
    snapshot = open_gallery(browser, server, "#item=1")
    tile = next(t for t in visible(snapshot) if t["id"] == 1)
    assert tile["src"] == UNREACHABLE
    wait(browser, "document.querySelector(\"[data-item-id='1'] .label\").textContent === 'Web pin'")


def test_sections_show_their_headers_pinned_and_a_scrubber_that_jumps(browser, server):
    open_gallery(browser, server)
    browser.execute_script("document.querySelector('#sections').value = 'month'; document.querySelector('#sections').dispatchEvent(new Event('change'));")
    wait(browser, f"document.getElementById('plane').dataset.sections === 'month' && {READY}")
    snapshot = state(browser)
    listing = api(server, "/api/sections?" + urllib.parse.urlencode(
        {"width": snapshot["width"], "cols": snapshot["cols"], "style": "waterfall", "sort": "date", "sections": "month"}))
    sections = listing["sections"]
    assert len(sections) > 100, "a million items over eighteen years, and today's photos"
    # The first section's header is at the top, as /api/page places it.
    first = browser.execute_script("""const h = document.querySelector('.section-header[data-kind=header][data-section="0"]');
        return h && { y: Number(h.dataset.y), text: h.textContent };""")
    assert first and first["y"] == sections[0]["headerY"]
    # Scrolled into the catalog, the header of the section at the top is pinned there.
    native_scroll(browser, 0.4)
    top = state(browser)["top"]
    expected = max(i for i, s in enumerate(sections) if s["headerY"] <= top)
    if top < sections[expected]["itemBottom"]:
        wait(browser, f"!document.getElementById('pinned').hidden && document.getElementById('pinned').dataset.section === '{expected}'")
        box = browser.execute_script("""const p = document.getElementById('pinned').getBoundingClientRect();
            const s = document.getElementById('scroller').getBoundingClientRect(); return p.top - s.top;""")
        assert box <= 0.5, "held at the top of the view (or pushed up by the section's end)"
    else:
        # Past the section's items (its footer, or the space before the next header): none pinned.
        wait(browser, "document.getElementById('pinned').hidden")
    screenshot(browser, "09-sections-pinned")
    # The scrubber lists years and months; a label jumps to its section.
    labels = browser.execute_script("return [...document.querySelectorAll('#scrubber button')].map((b) => Number(b.dataset.section))")
    assert len(labels) >= 5
    assert_months_under_their_years(browser)
    # Every label whole, on one line, within the gallery's stage (none over the toolbar), and
    # none over another.
    geometry = browser.execute_script("""const stage = document.querySelector('.stage').getBoundingClientRect();
        const boxes = [...document.querySelectorAll('#scrubber button')].map((b) => b.getBoundingClientRect())
          .map((r) => ({ top: r.top, bottom: r.bottom, height: r.height })).sort((a, b) => a.top - b.top);
        return { top: stage.top, bottom: stage.bottom, boxes };""")
    boxes = geometry["boxes"]
    assert geometry["top"] <= boxes[0]["top"] and boxes[-1]["bottom"] <= geometry["bottom"], geometry
    assert all(b["height"] < 1.5 * boxes[0]["height"] for b in boxes), "one line each"
    assert all(a["bottom"] <= b["top"] for a, b in zip(boxes, boxes[1:])), boxes
    # A pinned header pushed up by the next section's goes under the toolbar, not over it.
    pushed = next(s for s in sections if s["headerY"] > top + 400 and s["itemBottom"] - s["headerY"] > 3 * s["headerHeight"])
    browser.execute_script(f"window.catalogGallery.scroller.scrollTo({pushed['itemBottom']} - {pushed['headerHeight']} / 2)")
    wait(browser, f"{READY} && !document.getElementById('pinned').hidden && document.getElementById('pinned').getBoundingClientRect().top < document.querySelector('.stage').getBoundingClientRect().top")
    over = browser.execute_script("""const toolbar = document.querySelector('body > header').getBoundingClientRect();
        const pinned = document.getElementById('pinned').getBoundingClientRect();
        const y = toolbar.bottom - 2;
        return [...Array(9).keys()].map((i) => document.elementFromPoint(pinned.left + (i + 0.5) * pinned.width / 9, y))
          .filter((element) => element.closest('#pinned')).length;""")
    assert over == 0, "the pinned header shows over the toolbar"
    target = labels[len(labels) // 2]
    browser.execute_script(f"document.querySelector('#scrubber button[data-section=\"{target}\"]').click()")
    wait(browser, f"Math.abs(window.catalogGallery.scroller.top - {sections[target]['headerY']}) < 1 && {READY}")
    wait(browser, "location.hash.includes('sections=month')")
    browser.refresh()
    wait(browser, f"document.getElementById('plane').dataset.sections === 'month' && {READY}")
    assert browser.execute_script("return document.getElementById('sections').value") == "month"


def assert_months_under_their_years(browser):
    year = None
    for label in browser.execute_script("return [...document.querySelectorAll('#scrubber button')].map((b) => ({ year: b.classList.contains('year'), text: b.textContent, title: b.title }))"):
        if label["year"]:
            year = label["text"]
        else:
            assert year and label["title"].endswith(" " + year), f"{label} listed under {year}"


def test_the_scrubber_lists_a_month_only_under_its_own_year(driver, workspace):
    # A few of this year's images, then years of older ones: the next year's label finds no room
    # under this year's, and its months must not read as this year's.
    database = workspace / "years.sqlite"
    rows = workspace / "years.csv"
    rng = random.Random(7)
    with rows.open("w") as out:
        out.write("key,width,height,date\n")
        for index in range(40):
            out.write(f"now-{index},400,300,2026-11-10T12:00:00\n")
        for index in range(2000):
            out.write(f"old-{index},{rng.randint(200, 800)},{rng.randint(200, 800)},20{rng.randint(20, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00\n")
    catalog("import", "--db", database, rows)
    port = free_port()
    process, url = start_server(database, port, workspace / "years-thumbnails")
    try:
        driver.set_window_size(1280, 900)
        driver.get("about:blank")
        driver.get(url + "#sections=month")
        wait(driver, f"document.getElementById('plane').dataset.sections === 'month' && {READY} && document.querySelectorAll('#scrubber button').length > 5")
        assert driver.execute_script("return document.querySelector('#scrubber button').textContent") == "2026"
        assert_months_under_their_years(driver)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_viewer_shows_an_upright_thumbnail_where_the_browser_cannot_show_the_original(driver, workspace):
    # Chromium decodes no HEIC, and does not turn a WebP by its EXIF orientation; a JPEG it shows.
    fixtures = Path(__file__).resolve().parents[1] / "ImageProbeTests/Fixtures"
    folder = workspace / "viewer-formats"
    folder.mkdir(exist_ok=True)
    for name in ["plain.heic", "exif6.webp", "lossy.webp"]:
        shutil.copy(fixtures / name, folder / name)
    write_photos(folder, 1, seed=9, prefix="jpeg")
    database = workspace / "viewer-formats.sqlite"
    catalog("scan", "--db", database, folder)
    port = free_port()
    process, url = start_server(database, port, workspace / "viewer-thumbnails")
    try:
        driver.set_window_size(1280, 900)
        for item in api(url, "/api/items")["items"]:
            driver.get("about:blank")
            driver.get(url + f"#item={item['id']}&view={item['id']}")
            wait(driver, "document.getElementById('viewer').open && document.getElementById('viewer-details').textContent.includes('×')"
                         " && document.getElementById('viewer-image').complete && document.getElementById('viewer-image').naturalWidth > 0")
            shown = driver.execute_script("""const i = document.getElementById('viewer-image');
                return { src: i.getAttribute('src'), width: i.naturalWidth, height: i.naturalHeight, hidden: i.hidden };""")
            name = item["path"].rsplit("/", 1)[-1]
            assert not shown["hidden"], name
            expected = "/thumbnail" if name in ("plain.heic", "exif6.webp") else "/original"
            assert expected in shown["src"], f"{name}: {shown}"
            assert (shown["width"] > shown["height"]) == (item["width"] > item["height"]), f"{name} upright: {shown}, {item}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def free_port():
    """A loopback port nothing listens on: a server that stops is started again on it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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


def test_an_empty_catalog_says_so_and_a_server_that_goes_away_is_waited_for(driver, workspace):
    database = workspace / "empty.sqlite"
    catalog("scan", "--db", database, workspace / "photos-none", check=False)  # creates the catalog; the folder is missing
    port = free_port()
    process, url = start_server(database, port, workspace / "empty-thumbnails")
    try:
        driver.get("about:blank")
        driver.get(url)
        wait(driver, "document.getElementById('status').textContent.includes('This catalog is empty')")
        screenshot(driver, "10-empty")
        # The server stops: the gallery says it cannot reach it, and recovers by itself.
        write_photos(workspace / "later", 2, seed=3, prefix="later")
        catalog("scan", "--db", database, workspace / "later")
        process.terminate()
        process.wait(timeout=30)
        wait(driver, "document.getElementById('status').textContent.includes('Cannot reach the catalog server')", timeout=30)
        process, url = start_server(database, port, workspace / "empty-thumbnails")
        wait(driver, f"document.getElementById('plane').dataset.itemCount === '2' && {READY}", timeout=30)
        wait(driver, "document.getElementById('status').textContent === ''")
        assert len(driver.find_elements(By.CSS_SELECTOR, "[data-item-id]")) == 2
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_images_that_failed_while_the_server_was_away_load_once_it_is_back(driver, library, workspace):
    port = free_port()
    process, url = start_server(library["database"], port, workspace / "retry-thumbnails")
    try:
        driver.set_window_size(1280, 900)
        driver.get("about:blank")
        driver.get(url)
        wait(driver, f"{READY} && document.getElementById('plane').dataset.pendingImages === '0'")
        process.terminate()
        process.wait(timeout=30)
        # Further down the band already loaded: new tiles, whose images cannot come.
        driver.execute_script("document.getElementById('scroller').scrollTop += 1000")
        failed = "[...window.catalogGallery.tiles.live.values()].filter((t) => t.item.version && t.image.hidden).length"
        wait(driver, f"{failed} > 0", timeout=30)
        process, url = start_server(library["database"], port, workspace / "retry-thumbnails")
        wait(driver, f"{failed} === 0 && document.getElementById('status').textContent === ''", timeout=30)
        wait(driver, """[...window.catalogGallery.tiles.live.values()].filter((t) => t.item.version && t.imageAsked)
            .every((t) => t.image.complete && t.image.naturalWidth > 0 && !t.image.hidden)""", timeout=30)
    finally:
        process.terminate()
        process.wait(timeout=30)


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


def test_the_carousel_scales_fades_and_snaps_to_centre_an_image(browser, server):
    first = open_carousel_from_the_viewer(browser, server)
    state = browser.execute_script("""
        const root = document.getElementById('carousel');
        const scroller = document.getElementById('carousel-scroller');
        return { top: Number(root.dataset.top), width: scroller.clientWidth, itemHeight: parseFloat(getComputedStyle(root).getPropertyValue('--item-height')),
                 tiles: [...document.querySelectorAll('.carousel-tile')].map((t) => ({ id: Number(t.dataset.itemId), x: Number(t.dataset.x),
                          scale: Number(t.dataset.scale), alpha: Number(t.dataset.alpha), z: Number(t.style.zIndex) })) };""")
    expected = api(server, "/api/page?" + urllib.parse.urlencode({"style": "carousel", "width": state["width"], "item-height": state["itemHeight"],
                                                                   "offset": state["top"], "height": 300}))
    tiles = {t["id"]: t for t in state["tiles"]}
    for item in expected["items"]:
        tile = tiles[item["id"]]
        assert abs(tile["x"] - item["frame"]["x"]) < 1e-6
        assert abs(tile["scale"] - item["scale"]) < 1e-6 and abs(tile["alpha"] - item["alpha"]) < 1e-6, "the API's effects at this offset"
    nearest = max(expected["items"], key=lambda i: i["zIndex"])
    assert nearest["id"] == first["id"] and tiles[first["id"]]["scale"] > 0.99, "the centred image is full size and on top"
    screenshot(browser, "11-carousel")
    # The arrow key glides to the next image and centres it; a scroll that stops between two snaps.
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    following = api(server, f"/api/items?offset={first['index'] + 1}&limit=1")["items"][0]
    wait(browser, f"document.getElementById('carousel').dataset.centred === '{following['id']}' && !window.catalogGallery.carousel.animating")
    browser.execute_script("document.getElementById('carousel-scroller').scrollLeft += 137")
    wait(browser, """(() => { const c = window.catalogGallery.carousel; if (c.animating) return false;
        const tile = [...document.querySelectorAll('.carousel-tile')].find((t) => t.dataset.itemId === document.getElementById('carousel').dataset.centred);
        const r = tile.getBoundingClientRect(), s = document.getElementById('carousel-scroller').getBoundingClientRect();
        return Math.abs(r.left + r.width / 2 - (s.left + s.width / 2)) < 1.5; })()""")
    centred = browser.execute_script("return document.getElementById('carousel').dataset.centred")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    # The focus is back on the gallery's tile of the image that was centred, not the one at its left edge.
    wait(browser, f"document.getElementById('carousel').hidden && document.activeElement?.closest?.('.tile')?.dataset.itemId === '{centred}'")


def test_an_image_edited_in_place_and_a_title_imported_again_are_shown_anew(driver, workspace):
    """The same items at a new generation with other content, at the same places: the edited
    photo's new thumbnail and the imported item's new title are shown, not kept from the
    generation before (the page of the new generation carries them)."""
    database = workspace / "edited.sqlite"
    photos = workspace / "edited-photos"
    path = write_photos(photos, 1, seed=21, prefix="edited")[0]
    catalog("scan", "--db", database, photos)
    listing = workspace / "edited.csv"
    listing.write_text("key,width,height,title\npin-edited,300,200,Before\n")
    catalog("import", "--db", database, listing)
    with shown(driver, database, workspace / "edited-thumbnails") as url:
        wait(driver, f"{READY} && document.getElementById('plane').dataset.pendingImages === '0'")
        items = {item["path"]: item for item in api(url, "/api/items")["items"]}
        photo, pin = items[str(path)]["id"], items["pin-edited"]["id"]
        source = f"(document.querySelector(\"[data-item-id='{photo}'] img\")?.currentSrc ?? '')"
        before = wait(driver, f"{source}.includes('v=') && {source}")
        wait(driver, f"document.querySelector(\"[data-item-id='{pin}'] .label\")?.textContent === 'Before'")
        # The photo redrawn in place at the same size and time (another colour: its place in
        # the order and its frame stay), the pin imported again with another title.
        stat = path.stat()
        with Image.open(path) as image:
            size = image.size
        Image.new("RGB", size, (200, 30, 30)).save(path, quality=90)
        import os
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        catalog("scan", "--db", database, photos)
        listing.write_text("key,width,height,title\npin-edited,300,200,After\n")
        catalog("import", "--db", database, listing)
        wait(driver, f"document.querySelector(\"[data-item-id='{pin}'] .label\")?.textContent === 'After'"
                     f" && document.querySelector(\"[data-item-id='{pin}']\")?.getAttribute('aria-label') === 'After'", timeout=30)
        wait(driver, f"{source} !== {before!r} && document.querySelector(\"[data-item-id='{photo}'] img\")?.complete", timeout=30)
        pixel = driver.execute_script(f"""
            const image = document.querySelector("[data-item-id='{photo}'] img");
            const canvas = document.createElement('canvas');
            canvas.width = 4; canvas.height = 4;
            const context = canvas.getContext('2d');
            context.drawImage(image, 0, 0, 4, 4);
            return [...context.getImageData(1, 1, 1, 1).data];""")
        assert pixel[0] > 150 and pixel[1] < 80 and pixel[2] < 80, f"the red redrawn photo, not the old one: {pixel}"


def focus_the_last_image_in_view(browser, server):
    """Opens the gallery, and the viewer on the last image in view (far enough into the order that
    the carousel can centre it), then closes it: the focus is on that image's tile. Returns it."""
    snapshot = open_gallery(browser, server)
    first = max(visible(snapshot), key=lambda t: t["index"])
    browser.find_element(By.CSS_SELECTOR, f".tile[data-item-id='{first['id']}']").click()
    wait(browser, "document.getElementById('viewer').open")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, f"!document.getElementById('viewer').open && document.activeElement.dataset.itemId === '{first['id']}'")
    return first


def test_the_carousel_is_a_modal_dialog_that_says_its_image_and_opens_it(browser, server):
    first = focus_the_last_image_in_view(browser, server)
    # The toolbar's button opens it at the focused image.
    browser.execute_script("document.getElementById('open-carousel').click()")
    wait(browser, f"!document.getElementById('carousel').hidden && document.getElementById('carousel').dataset.centred === '{first['id']}'")
    root = browser.find_element(By.ID, "carousel")
    assert root.get_attribute("role") == "dialog" and root.get_attribute("aria-modal") == "true"
    assert browser.execute_script("return document.querySelector('.stage').inert && document.querySelector('header.toolbar').inert"), \
        "the page behind takes neither focus nor clicks"
    name = api(server, f"/api/items/{first['id']}")
    expected = name.get("title") or name["path"].rsplit("/", 1)[-1]
    wait(browser, f"document.getElementById('carousel-status').textContent.startsWith({expected!r} + ', ')")
    # Tab stays within the dialog (the page behind is inert).
    for _ in range(4):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        assert browser.execute_script("return document.activeElement === document.body || document.getElementById('carousel').contains(document.activeElement)")
    browser.find_element(By.ID, "carousel-scroller").click()
    wait(browser, "document.activeElement.id === 'carousel-scroller' && !window.catalogGallery.carousel.animating")
    centred = browser.execute_script("return document.getElementById('carousel').dataset.centred")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait(browser, f"document.getElementById('carousel').hidden && document.getElementById('viewer').open"
                  f" && document.getElementById('viewer').dataset.itemId === '{centred}'")
    assert not browser.execute_script("return document.querySelector('.stage').inert"), "the page is live again"
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "!document.getElementById('viewer').open")
    # Its keys work wherever the focus is (on the body, say).
    browser.execute_script("document.getElementById('open-carousel').click()")
    wait(browser, "!document.getElementById('carousel').hidden && document.activeElement.id === 'carousel-scroller'")
    browser.execute_script("document.activeElement.blur()")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "document.getElementById('carousel').hidden && !document.querySelector('.stage').inert")
    # Opened at an item that is not there (a stale link): it closes again, and the page is live.
    browser.execute_async_script("""const done = arguments[arguments.length - 1];
        window.catalogGallery.carousel.open(987654321, 'date').catch(() => {}).finally(() => done());""")
    assert browser.execute_script("return document.getElementById('carousel').hidden && !document.querySelector('.stage').inert"), \
        "no empty modal left over the page"
    # The 404 of that item is the one console error, and it is expected.
    errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert all("item=987654321" in message and "404" in message for message in errors), errors


CAROUSEL_SETTLED = "!document.getElementById('carousel').hidden && document.getElementById('carousel').dataset.state === 'complete' && !window.catalogGallery.carousel.animating"


def test_back_closes_the_carousel_and_its_address_opens_it_again(browser, server):
    first = focus_the_last_image_in_view(browser, server)
    # (The history's place: navigation.currentEntry.index, Chromium's Navigation API.)
    wait(browser, "location.hash.includes('style=')")
    gallery = browser.execute_script("return [navigation.currentEntry.index, location.hash]")
    browser.execute_script("document.getElementById('open-carousel').click()")
    wait(browser, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{first['id']}'")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    following = api(server, f"/api/items?offset={first['index'] + 1}&limit=1")["items"][0]
    wait(browser, f"document.getElementById('carousel').dataset.centred === '{following['id']}' && !window.catalogGallery.carousel.animating")
    # One history entry, whose address says the centred image: a reload opens the carousel there.
    wait(browser, f"location.hash.endsWith('&carousel={following['id']}')")
    assert browser.execute_script("return navigation.currentEntry.index") == gallery[0] + 1
    browser.refresh()
    wait(browser, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{following['id']}'")
    assert browser.execute_script("return navigation.currentEntry.index") == gallery[0] + 1, "the reload adds no entry"
    # Back closes it: the gallery is where it was, its focus on the image that was centred.
    browser.back()
    wait(browser, f"document.getElementById('carousel').hidden && document.activeElement?.closest?.('.tile')?.dataset.itemId === '{following['id']}'")
    wait(browser, "!location.hash.includes('carousel')")
    configuration = lambda hash: {k: v for k, v in urllib.parse.parse_qs(hash.lstrip("#")).items() if k != "item"}
    assert configuration(browser.execute_script("return location.hash")) == configuration(gallery[1]), "the configuration as it was"
    # Opened from the viewer, it takes the viewer's entry; Enter hands it back. Back from
    # either returns to the gallery, with neither open.
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait(browser, "document.getElementById('viewer').open")
    browser.find_element(By.ID, "viewer-carousel").click()
    wait(browser, f"{CAROUSEL_SETTLED} && history.state?.carousel === {following['id']}")
    browser.find_element(By.ID, "carousel-scroller").click()
    wait(browser, "document.activeElement.id === 'carousel-scroller' && !window.catalogGallery.carousel.animating")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait(browser, "document.getElementById('carousel').hidden && document.getElementById('viewer').open && history.state?.viewer !== undefined")
    browser.back()
    wait(browser, "!document.getElementById('viewer').open && document.getElementById('carousel').hidden && !history.state?.viewer && !history.state?.carousel")
    assert browser.execute_script("return navigation.currentEntry.index") == gallery[0], "one entry for the viewer and the carousel it became"
    # Back from the carousel that took the viewer's entry leaves the focus on the image it
    # centred, not on the one the viewer was opened from.
    focused = "document.activeElement?.closest?.('.tile')?.dataset.itemId"
    opened = browser.execute_script(f"return {focused}")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait(browser, f"document.getElementById('viewer').open && document.getElementById('viewer').dataset.itemId === '{opened}'")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"document.getElementById('viewer').dataset.itemId !== '{opened}'")
    browser.find_element(By.ID, "viewer-carousel").click()
    wait(browser, f"{CAROUSEL_SETTLED} && history.state?.carousel !== undefined")
    browser.find_element(By.ID, "carousel-scroller").click()
    wait(browser, "document.activeElement.id === 'carousel-scroller' && !window.catalogGallery.carousel.animating")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    centred = browser.execute_script("return history.state.carousel")
    wait(browser, f"!window.catalogGallery.carousel.animating && history.state?.carousel !== {centred}")
    centred = browser.execute_script("return document.getElementById('carousel').dataset.centred")
    browser.back()
    wait(browser, f"document.getElementById('carousel').hidden && {focused} === '{centred}'")


def slow_network(browser, latency_ms):
    """Every request takes `latency_ms` longer (Chromium's network emulation); 0 ends it."""
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": latency_ms,
                                                                  "downloadThroughput": -1, "uploadThroughput": -1})


def test_what_waits_for_the_network_gives_way_to_what_the_person_did_meanwhile(browser, server):
    first = focus_the_last_image_in_view(browser, server)
    try:
        # A page key whose band is on its way: the focus follows to the top once it is here...
        browser.execute_script("const g = window.catalogGallery; g.bands.reset(g.parameters, g.bands.generation);")
        slow_network(browser, 3000)
        top = state(browser)["top"]
        ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
        wait(browser, f"window.catalogGallery.scroller.top > {top} && document.getElementById('plane').dataset.state === 'loading'", timeout=2.5)
        wait(browser, READY)
        wait(browser, f"{FOCUSED} === {at_the_top(state(browser))['id']}")
        # ... unless the focus went elsewhere meanwhile: it stays there.
        browser.execute_script("const g = window.catalogGallery; g.bands.reset(g.parameters, g.bands.generation);")
        top = state(browser)["top"]
        ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
        wait(browser, f"window.catalogGallery.scroller.top > {top} && document.getElementById('plane').dataset.state === 'loading'", timeout=2.5)
        browser.execute_script("document.getElementById('sort').focus()")
        wait(browser, READY)
        assert browser.execute_script("return document.activeElement.id") == "sort"
        # The carousel opened from the viewer takes the viewer's history entry: Escape before it
        # has loaded leaves the gallery's entry, not the viewer's, at hand.
        slow_network(browser, 0)
        index = browser.execute_script("return navigation.currentEntry.index")
        opened = at_the_top(state(browser))["id"]
        browser.find_element(By.CSS_SELECTOR, f".tile[data-item-id='{opened}']").click()
        wait(browser, "document.getElementById('viewer').open && history.state?.viewer !== undefined")
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        shown = wait(browser, f"document.getElementById('viewer').dataset.itemId !== '{opened}' && document.getElementById('viewer').dataset.itemId")
        slow_network(browser, 3000)
        browser.find_element(By.ID, "viewer-carousel").click()
        assert browser.execute_script("return !document.getElementById('carousel').hidden && document.getElementById('carousel').dataset.state !== 'complete'")
        ActionChains(browser).send_keys(Keys.ESCAPE).perform()
        wait(browser, f"document.getElementById('carousel').hidden && navigation.currentEntry.index === {index} && !history.state?.viewer")
        # The focus is on the image the viewer showed, not on the one it was opened from.
        wait(browser, f"{FOCUSED} === {shown}")
    finally:
        slow_network(browser, 0)


def test_with_reduced_motion_the_carousel_steps_without_gliding(browser, server):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    try:
        first = open_carousel_from_the_viewer(browser, server)
        # Where the row is at every frame, from before the key to a few frames after the step.
        browser.execute_script("""window.carouselPositions = [];
            const scroller = document.getElementById('carousel-scroller');
            const sample = () => { window.carouselPositions.push(scroller.scrollLeft); if (window.carouselPositions.length < 100000) requestAnimationFrame(sample); };
            requestAnimationFrame(sample);""")
        wait(browser, "window.carouselPositions.length > 2")
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        wait(browser, f"document.getElementById('carousel').dataset.centred !== '{first['id']}' && !window.catalogGallery.carousel.animating")
        seen = browser.execute_script("return window.carouselPositions.length")
        wait(browser, f"window.carouselPositions.length > {seen} + 5")
        positions = browser.execute_script("return window.carouselPositions")
        assert len(set(positions)) == 2, f"from one place to the next, nothing in between: {sorted(set(positions))}"
        ActionChains(browser).send_keys(Keys.ESCAPE).perform()
        wait(browser, "document.getElementById('carousel').hidden")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})


def test_a_focused_image_that_is_removed_hands_its_focus_to_the_next(driver, workspace):
    database = workspace / "removed-focus.sqlite"
    photos = workspace / "removed-focus-photos"
    paths = write_photos(photos, 6, seed=31, prefix="focus")
    for index, path in enumerate(paths):  # newest first: the order is the files' order
        os.utime(path, (1_700_000_000 - index * 86_400, 1_700_000_000 - index * 86_400))
    catalog("scan", "--db", database, photos)
    with shown(driver, database, workspace / "removed-focus-thumbnails") as url:
        wait(driver, READY)
        driver.find_element(By.ID, "scroller").send_keys(Keys.HOME)
        wait(driver, "document.activeElement.dataset.index === '0'")
        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
        wait(driver, "document.activeElement.dataset.index === '1'")
        items = api(url, "/api/items")["items"]
        removed, following = items[1], items[2]
        assert driver.execute_script("return document.activeElement.dataset.itemId") == str(removed["id"])
        generation = int(driver.execute_script("return document.getElementById('plane').dataset.generation"))
        os.remove(removed["path"])
        catalog("scan", "--db", database, photos)
        wait(driver, f"Number(document.getElementById('plane').dataset.generation) > {generation} && {READY}"
                     f" && document.activeElement.dataset?.itemId === '{following['id']}'", timeout=30,
             message="the focus moved to the image that took the removed one's place")
        assert not driver.find_elements(By.CSS_SELECTOR, f".tile[data-item-id='{removed['id']}']"), "no tile of the removed image stays"
        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
        wait(driver, f"document.activeElement.dataset.itemId === '{items[3]['id']}'")


def test_a_focused_image_is_not_left_under_the_pinned_section_header(browser, server):
    open_gallery(browser, server, "#sections=month")
    # An image a little below the top, the view then scrolled so that the pinned header covers its top.
    index = browser.execute_script("""const g = window.catalogGallery;
        const item = [...g.tiles.live.values()].map((t) => t.item).filter((i) => i.frame.y > g.scroller.top + 300)
            .sort((a, b) => a.frame.y - b.frame.y)[0];
        g.scroller.scrollTo(item.frame.y - 5);
        g.render();
        return item.index;""")
    wait(browser, f"{READY} && !document.getElementById('pinned').hidden")
    browser.execute_script(f"window.catalogGallery.focusIndex({index})")
    wait(browser, f"document.activeElement.dataset.index === '{index}'")
    covered = browser.execute_script("""const g = window.catalogGallery, t = document.activeElement;
        const frame = g.tiles.tile(Number(t.dataset.itemId)).item.frame;
        return g.scroller.top + parseFloat(document.getElementById('pinned').style.height) - frame.y;""")
    assert covered <= 0.5, f"the pinned header covers {covered} points of the focused image"


def test_month_titles_of_early_years_name_those_years(browser, server):
    open_gallery(browser, server)
    names = browser.execute_async_script("""const done = arguments[arguments.length - 1];
        import(document.querySelector('script[type=module]').src.replace('main.js', 'sections.js'))
            .then((m) => done([m.sectionName('0050-06', 'month'), m.sectionName('0001-01', 'month'), m.sectionName('2024-03', 'month')]));""")
    assert names == ["June 50", "January 1", "March 2024"], f"not 1950 and 1901: {names}"
