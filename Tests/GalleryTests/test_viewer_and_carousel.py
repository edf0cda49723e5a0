"""The viewer and the carousel in Chromium: opening, stepping, closing, and the browser's history."""
import shutil
import urllib.parse
import urllib.request
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import api, catalog, screenshot, wait, write_photos
from gallery import (
    READY, state, visible, open_gallery, at_the_top, FOCUSED, CAROUSEL_CENTRED, CAROUSEL_SETTLED, free_port, shown,
    start_server, open_carousel_from_the_viewer, focus_the_last_image_in_view, hold_requests, release_requests,
)


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


def test_a_viewer_opened_by_a_link_and_closed_after_a_resize_leaves_the_address_of_the_gallery(browser, server):
    """A link with the viewer open, the window narrowed, the viewer closed: the address says the
    gallery as it is (two columns, no viewer), not the link (the entry the viewer went back to
    had the link's own text, so nothing rewrote it, and a reload opened the viewer again)."""
    item = min(visible(open_gallery(browser, server)), key=lambda t: t["index"])
    try:
        browser.set_window_size(1280, 900)
        browser.get("about:blank")
        browser.get(server + f"#item={item['id']}&cols=5&style=waterfall&view={item['id']}")  # as the gallery writes it
        wait(browser, f"document.getElementById('viewer').open && {READY}")
        browser.set_window_size(375, 800)
        wait(browser, f"window.catalogGallery.parameters?.cols === 2 && {READY}")
        # The address's timer (300 ms after the relayout) goes by while the viewer is open, writing
        # nothing: what the bug needs (a close within it had the timer write the address after).
        browser.execute_async_script("setTimeout(arguments[arguments.length - 1], 700)")
        browser.find_element(By.ID, "viewer-close").click()
        wait(browser, "!document.getElementById('viewer').open && !location.hash.includes('view=') && location.hash.includes('cols=2')",
             message="the address of the gallery behind")
    finally:
        browser.set_window_size(1280, 900)


def test_escape_before_any_click_closes_a_viewer_opened_by_a_link(browser, server):
    """Escape with no click or key press before it on the page cannot be cancelled: Chromium
    closes the dialog itself, before the popstate of the viewer's going back. The gallery took
    that popstate for its own, followed the link's entry (which names the viewer) and opened the
    viewer again, so Escape never closed it."""
    item = min(visible(open_gallery(browser, server)), key=lambda t: t["index"])
    browser.get("about:blank")
    browser.get(server + f"#item={item['id']}&view={item['id']}")
    wait(browser, f"document.getElementById('viewer').open && {READY} && history.state?.viewer !== undefined")
    assert not browser.execute_script("return navigator.userActivation.hasBeenActive"), "no activation yet: the case under test"
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "!document.getElementById('viewer').open && !location.hash.includes('view=') && !history.state?.viewer",
         message="closed, and the address the gallery's")
    assert not browser.execute_script("return document.getElementById('viewer').open")
    # The same after a reload with the viewer open, where the gallery behind followed the viewer
    # far from where it opened: Escape leaves it at the image last viewed (it went back to the
    # place before the viewer, the image's tile focused off screen), as × and Back do.
    browser.find_element(By.CSS_SELECTOR, f"[data-item-id='{item['id']}']").click()
    wait(browser, "document.getElementById('viewer').open")
    for _ in range(30):
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"document.getElementById('viewer').dataset.index === '{item['index'] + 30}'")
    viewed = int(browser.execute_script("return document.getElementById('viewer').dataset.itemId"))
    browser.refresh()
    wait(browser, f"document.getElementById('viewer').open && {READY} && document.getElementById('viewer').dataset.itemId === '{viewed}'")
    wait(browser, f"document.querySelector(\"[data-item-id='{viewed}']\") !== null", message="the gallery behind at the image viewed")
    assert not browser.execute_script("return navigator.userActivation.hasBeenActive")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, f"!document.getElementById('viewer').open && !location.hash.includes('view=') && {READY}")
    assert viewed in [t["id"] for t in visible(state(browser))], "the gallery stays at the image last viewed"


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
    centred = browser.execute_script("return history.state.carousel")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"!window.catalogGallery.carousel.animating && history.state?.carousel !== {centred}")
    centred = browser.execute_script("return document.getElementById('carousel').dataset.centred")
    browser.back()
    wait(browser, f"document.getElementById('carousel').hidden && {focused} === '{centred}'")


def test_what_waits_for_the_network_gives_way_to_what_the_person_did_meanwhile(browser, server):
    first = focus_the_last_image_in_view(browser, server)
    loading = "document.getElementById('plane').dataset.state === 'loading'"
    try:
        # A page key whose band is on its way: the focus follows to the top once it is here...
        hold_requests(browser)
        browser.execute_script("const g = window.catalogGallery; g.bands.reset(g.parameters, g.bands.generation);")
        top = state(browser)["top"]
        ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
        wait(browser, f"window.catalogGallery.scroller.top > {top} && {loading}")
        release_requests(browser)
        wait(browser, READY)
        wait(browser, f"{FOCUSED} === {at_the_top(state(browser))['id']}")
        # ... unless the focus went elsewhere meanwhile: it stays there.
        hold_requests(browser)
        browser.execute_script("const g = window.catalogGallery; g.bands.reset(g.parameters, g.bands.generation);")
        top = state(browser)["top"]
        ActionChains(browser).send_keys(Keys.PAGE_DOWN).perform()
        wait(browser, f"window.catalogGallery.scroller.top > {top} && {loading}")
        browser.execute_script("document.getElementById('sort').focus()")
        release_requests(browser)
        wait(browser, READY)
        assert browser.execute_script("return document.activeElement.id") == "sort"
        # The carousel opened from the viewer takes the viewer's history entry: Escape before it
        # has loaded leaves the gallery's entry, not the viewer's, at hand.
        index = browser.execute_script("return navigation.currentEntry.index")
        opened = at_the_top(state(browser))["id"]
        browser.find_element(By.CSS_SELECTOR, f".tile[data-item-id='{opened}']").click()
        wait(browser, "document.getElementById('viewer').open && history.state?.viewer !== undefined")
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        shown = wait(browser, f"document.getElementById('viewer').dataset.itemId !== '{opened}' && document.getElementById('viewer').dataset.itemId")
        hold_requests(browser)
        browser.find_element(By.ID, "viewer-carousel").click()
        assert browser.execute_script("return !document.getElementById('carousel').hidden && document.getElementById('carousel').dataset.state !== 'complete'")
        ActionChains(browser).send_keys(Keys.ESCAPE).perform()
        # The carousel's answer comes after the Escape, as a slow network's would.
        release_requests(browser)
        wait(browser, f"document.getElementById('carousel').hidden && navigation.currentEntry.index === {index} && !history.state?.viewer")
        # The focus is on the image the viewer showed, not on the one it was opened from.
        wait(browser, f"{FOCUSED} === {shown}")
    finally:
        release_requests(browser)


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


def test_history_moves_that_overtake_a_slow_network_open_only_what_the_last_one_says(browser, server):
    """Forward into the viewer's entry, then Back before the gallery's layout for Forward has
    come: the viewer stays closed (it opened over the gallery's entry, as a new one that took
    Forward's place). A window resized while the carousel waits for its first page: once it
    opens, its image is centred in the window as it is then."""
    first = focus_the_last_image_in_view(browser, server)
    gallery = browser.execute_script("return navigation.currentEntry.index")
    assert browser.execute_script("return navigation.canGoForward"), "the viewer's entry is ahead"
    try:
        hold_requests(browser)
        browser.execute_script("history.forward()")
        wait(browser, "location.hash.includes('view=')")
        browser.execute_script("history.back()")
        wait(browser, f"!location.hash.includes('view=') && navigation.currentEntry.index === {gallery}")
        release_requests(browser)
        # Both layouts asked for are back once the gallery is laid out and complete again.
        wait(browser, f"!window.catalogGallery.relayoutPending && {READY}")
        wait(browser, "navigation.transition === null")
        assert not browser.execute_script("return document.getElementById('viewer').open")
        assert browser.execute_script("return navigation.currentEntry.index") == gallery
        assert browser.execute_script("return navigation.canGoForward"), "the viewer's entry is still ahead"
        # The carousel opening over a slow network while the window narrows.
        hold_requests(browser)
        browser.find_element(By.ID, "open-carousel").click()
        wait(browser, "document.getElementById('carousel').dataset.state === 'opening'")
        browser.set_window_size(1000, 900)
        wait(browser, "window.innerWidth <= 1000")
        release_requests(browser)
        wait(browser, f"{CAROUSEL_SETTLED} && document.getElementById('carousel-scroller').clientWidth <= 1000")
        wait(browser, CAROUSEL_CENTRED)
        assert browser.execute_script("const c = window.catalogGallery.carousel; return c.pad === c.element.clientWidth / 2")
    finally:
        release_requests(browser)
        browser.set_window_size(1280, 900)
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, f"document.getElementById('carousel').hidden && {FOCUSED} === {first['id']}")


def test_quick_presses_in_the_carousel_move_as_many_images(browser, server):
    """Three presses of the right arrow faster than the server answers where to stop move three
    images, each step from where the one before stops (they moved one)."""
    first = open_carousel_from_the_viewer(browser, server)
    try:
        hold_requests(browser)
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT * 3).perform()
        release_requests(browser)
        carousel = "window.catalogGallery.carousel"
        wait(browser, f"{CAROUSEL_SETTLED} && !{carousel}.stepping && !{carousel}.queuedSteps"
                      f" && document.getElementById('carousel').dataset.centred !== '{first['id']}'")
        order = browser.execute_script("""return [...document.querySelectorAll('.carousel-tile')]
            .sort((a, b) => Number(a.dataset.x) - Number(b.dataset.x)).map((tile) => Number(tile.dataset.itemId))""")
        centred = int(browser.execute_script("return document.getElementById('carousel').dataset.centred"))
        assert order.index(centred) - order.index(first["id"]) == 3, (first["id"], centred, order)
    finally:
        release_requests(browser)
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "document.getElementById('carousel').hidden")


def test_a_long_title_without_spaces_wraps_in_the_viewer_and_the_carousel(driver, workspace):
    """An imported item's title of 230 characters without a space stays inside the window: in
    the viewer's placeholder and caption, and on its carousel tile (it ran past both edges)."""
    database = workspace / "long-title.sqlite"
    title = "A-very-long-title-" + "x" * 212
    listing = workspace / "long-title.csv"
    listing.write_text("key,width,height,title\n" + "".join(f"pin-{n},300,{200 + n},{title if n == 5 else f'Pin {n}'}\n" for n in range(10)))
    catalog("import", "--db", database, listing)
    for width in (360, 1280):
        with shown(driver, database, workspace / "long-title-thumbnails") as url:
            driver.set_window_size(width, 900)
            wait(driver, READY)
            item = next(item for item in api(url, "/api/items?limit=20")["items"] if item.get("title") == title)
            driver.execute_script(f"window.catalogGallery.open({item['id']})")
            wait(driver, "document.getElementById('viewer').open")
            wait(driver, f"document.getElementById('viewer').textContent.includes({title[:30]!r})")
            spill = """const dialog = document.getElementById('viewer');
                return { scroll: dialog.scrollWidth, client: dialog.clientWidth,
                         outside: [...dialog.querySelectorAll('figcaption *, .viewer-placeholder')].filter((element) => {
                           const box = element.getBoundingClientRect();
                           return box.width > 0 && (box.left < -0.5 || box.right > window.innerWidth + 0.5); }).length };"""
            seen = driver.execute_script(spill)
            assert seen["scroll"] <= seen["client"] and seen["outside"] == 0, (width, seen)
            driver.find_element(By.ID, "viewer-carousel").click()
            wait(driver, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{item['id']}'")
            label = driver.execute_script(f"""const tile = document.querySelector(".carousel-tile[data-item-id='{item['id']}']");
                const label = tile.querySelector('.label'); if (!label) return null;
                return {{ scroll: label.scrollWidth, client: label.clientWidth }};""")
            assert label is None or label["scroll"] <= label["client"], (width, label)

