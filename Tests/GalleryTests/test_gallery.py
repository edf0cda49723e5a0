"""The gallery at / in Chromium: what a person sees and does, checked against /api/page."""
import io
import urllib.parse
import urllib.request

from PIL import Image
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import UNREACHABLE, api, screenshot, wait
from gallery import MOST_TILES, READY, state, visible, top_of, open_gallery, native_scroll, page, at_the_top, FOCUSED, shown


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
    # The item at the top of the view, or, when the address was written before the grid's last
    # band was drawn, the item the grid was laid out around (at the top too, not always leftmost).
    named = int(urllib.parse.parse_qs(before["hash"].lstrip("#"))["item"][0])
    top_row = {t["id"] for t in visible(before) if t["screenY"] <= 0.5} | {top_of(before)["id"]}
    assert named in top_row, (before["hash"], top_row)
    browser.refresh()
    wait(browser, f"document.getElementById('plane').dataset.style === 'grid' && {READY}")
    after = state(browser)
    assert after["cols"] == before["cols"]
    assert named in {t["id"] for t in visible(after)}
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


def test_dark_scheme(browser, server):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    open_gallery(browser, server)
    wait(browser, "document.getElementById('plane').dataset.pendingImages === '0'")
    background = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(18, 18, 20)"
    screenshot(browser, "08-dark")


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
