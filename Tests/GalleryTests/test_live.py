"""The gallery while the catalog changes under it, or its server goes away and comes back."""
import os
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import api, catalog, screenshot, wait, write_photos
from gallery import READY, state, visible, top_of, open_gallery, native_scroll, free_port, scanned_in_order, shown, start_server


# After every change of the plane's tiles (added, removed, moved), the fewest that were in view:
# a view left blank for a moment (the old tiles released before the new layout's bands came)
# shows as 0.
WATCH_TILES_IN_VIEW = """
const scroller = document.getElementById('scroller');
const count = () => {
  const box = scroller.getBoundingClientRect();
  return [...document.querySelectorAll('[data-item-id]')].filter((tile) => {
    const r = tile.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  }).length;
};
window.fewestTilesInView = count();
window.tileChanges = 0;
new MutationObserver(() => {
  window.tileChanges += 1;
  window.fewestTilesInView = Math.min(window.fewestTilesInView, count());
}).observe(document.getElementById('plane'), { childList: true, subtree: true, attributes: true });
"""


def test_a_finished_scan_keeps_the_item_at_the_top_in_place(browser, server, library):
    open_gallery(browser, server)
    native_scroll(browser, 0.2)
    before = state(browser)
    top = top_of(before)
    browser.execute_script(WATCH_TILES_IN_VIEW)
    # Another process adds images (the newest: they go first, and everything moves down).
    write_photos(library["photos"], 3, seed=99, prefix="new")
    catalog("scan", "--db", library["database"], library["photos"])
    wait(browser, f"Number(document.getElementById('plane').dataset.generation) > {before['generation']} && {READY}", timeout=30)
    after = state(browser)
    assert after["itemCount"] == before["itemCount"] + 3
    tile = next(t for t in visible(after) if t["id"] == top["id"])
    assert abs(tile["screenY"] - top["screenY"]) < 1, "the item at the top stayed where it was on screen"
    assert browser.execute_script("return window.tileChanges") > 0, "the tiles moved down for the new images"
    assert browser.execute_script("return window.fewestTilesInView") > 0, "the view was never blank while the new layout came"
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
    changes = wait(browser, f"window.catalogGallery.live.lastChanges?.from === {before['generation']} "
                            f"&& Number(document.getElementById('plane').dataset.generation) === window.catalogGallery.live.lastChanges.to "
                            f"&& {READY} && window.catalogGallery.live.lastChanges", timeout=30)
    assert not changes["reload"] and [d["id"] for d in changes["deletes"]] == [top["id"]], changes
    assert changes["inserts"] == [] and changes["updates"] == []
    after = state(browser)
    assert after["itemCount"] == before["itemCount"] - 1
    assert top["id"] not in [t["id"] for t in after["tiles"]]
    tile = next(t for t in visible(after) if t["id"] == second["id"])
    assert abs(tile["screenY"] - second["screenY"]) < 1, "the next image held the place"
    library["count"] -= 1


def test_an_empty_catalog_says_so_and_a_server_that_goes_away_is_waited_for(driver, workspace):
    database = workspace / "empty.sqlite"
    (workspace / "photos-none").mkdir()
    catalog("scan", "--db", database, workspace / "photos-none")  # an empty folder: an empty catalog
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


class QuietImages(SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


def test_an_image_at_an_origin_imported_after_the_page_loaded_is_shown(driver, workspace):
    """The page's policy lists the image origins it had when it loaded: an item imported later
    with its image at a new origin makes the page load again, at this place, with a policy that
    lets the image in (without it, the browser blocks the image and the tile shows its title)."""
    folder = workspace / "origin-images"
    folder.mkdir()
    Image.new("RGB", (300, 200), (200, 40, 40)).save(folder / "pin.jpg")
    images = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietImages, directory=str(folder)))
    threading.Thread(target=images.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{images.server_address[1]}"
    database = workspace / "origins.sqlite"
    first = workspace / "origins-1.csv"
    first.write_text("key,width,height,date,title\n" + "".join(f"old-{i},400,300,2001-01-{i + 1:02}T00:00:00,Old {i}\n" for i in range(20)))
    catalog("import", "--db", database, first)
    process, url = start_server(database, free_port(), workspace / "origins-thumbnails")
    try:
        driver.get("about:blank")
        driver.get(url + "#cols=2")
        wait(driver, f"{READY} && document.getElementById('plane').dataset.itemCount === '20'")
        policy = driver.execute_script("return fetch('/', { method: 'HEAD' }).then((r) => r.headers.get('Content-Security-Policy'))")
        assert origin not in policy
        driver.execute_script("window.notReloaded = true")
        # Another process imports an item at the top (the newest) whose image is at the new origin.
        later = workspace / "origins-2.csv"
        later.write_text(f"key,width,height,date,title,url\nweb,300,200,2002-01-01T00:00:00,Web pin,{origin}/pin.jpg\n")
        catalog("import", "--db", database, later)
        shown_image = f"document.querySelector(\"img[src='{origin}/pin.jpg']\")"
        wait(driver, f"{shown_image}?.complete && {shown_image}.naturalWidth === 300 && !{shown_image}.hidden", timeout=30,
             message="the image at the new origin loaded")
        assert driver.execute_script("return window.notReloaded === undefined"), "the page loaded again for the new policy"
        assert driver.execute_script("return document.getElementById('plane').dataset.itemCount") == "21"
        # How the page reads a policy's img-src: default ports, a scheme, http's upgrade to https.
        cases = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            import(document.querySelector('script[type=module]').src.replace('main.js', 'policy.js')).then(({ allows }) => done([
              allows("img-src 'self' https://cdn.example:443", 'https://cdn.example'),
              allows("img-src 'self' http://cdn.example", 'https://cdn.example'),
              allows("img-src 'self' https:", 'https://x.example'),
              allows("img-src 'self' https://cdn.example", 'https://cdn.example:8443'),
              allows("default-src 'none'; img-src 'self'", 'https://cdn.example'),
              allows("img-src 'self' https://cdn.example", 'https://evil.example'),
              allows("img-src 'self' http://cdn.example:80", 'https://cdn.example'),
              allows("img-src 'self' http://[::1]:8080", 'http://[::1]:8080'),
              allows("img-src 'self' http://127.0.0.1:8080", 'http://127.0.0.1:8080'),
            ]));""")
        assert cases == [True, True, True, False, False, False, False, False, True], cases
    finally:
        process.terminate()
        process.wait(timeout=30)
        images.shutdown()


FAILED_IMAGES = "[...window.catalogGallery.tiles.live.values()].filter((t) => t.item.version && t.image.hidden).length"


def loaded_on_a_server_of_its_own(driver, library, workspace, thumbnails):
    """The gallery on a server of its own (on `port`, which a test stops and starts again), every
    image of the first screen loaded."""
    port = free_port()
    process, url = start_server(library["database"], port, workspace / thumbnails)
    driver.set_window_size(1280, 900)
    driver.get("about:blank")
    driver.get(url)
    wait(driver, f"{READY} && document.getElementById('plane').dataset.pendingImages === '0'")
    return port, process


def wait_for_every_image(driver):
    """No image failed, no error shown, and every image asked for is there."""
    wait(driver, f"{FAILED_IMAGES} === 0 && document.getElementById('status').textContent === ''", timeout=30)
    wait(driver, """[...window.catalogGallery.tiles.live.values()].filter((t) => t.item.version && t.imageAsked)
        .every((t) => t.image.complete && t.image.naturalWidth > 0 && !t.image.hidden)""", timeout=30)


def test_images_that_failed_while_the_server_was_away_load_once_it_is_back(driver, library, workspace):
    port, process = loaded_on_a_server_of_its_own(driver, library, workspace, "retry-thumbnails")
    try:
        process.terminate()
        process.wait(timeout=30)
        # A little further down, within the band already loaded (a band asked for would say
        # when the server is back): new tiles, whose images cannot come.
        driver.execute_script("document.getElementById('scroller').scrollTop += 400")
        wait(driver, f"{FAILED_IMAGES} > 0 && document.getElementById('status').dataset.kind === 'error'", timeout=30)
        # Then only the event stream's reconnection may say that the server is back: the
        # gallery's own looks now and then (while the stream is down) are turned off. When the
        # stream came back before such a look, the error and the failed images stayed.
        driver.execute_script("clearInterval(window.catalogGallery.live.pollTimer)")
        process, _ = start_server(library["database"], port, workspace / "retry-thumbnails")
        wait_for_every_image(driver)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_images_that_failed_in_a_restart_no_page_request_saw_load_again(driver, library, workspace):
    """A restart (or a network drop) too short for any page request to fail: the images asked
    for meanwhile failed for good, since only a shown error made the gallery ask for them again.
    A failed image now makes it look at the server, and ask again."""
    port, process = loaded_on_a_server_of_its_own(driver, library, workspace, "restart-thumbnails")
    try:
        # Only the failed images may bring the server back to the gallery's mind: its looks
        # now and then (while the event stream is down) are turned off.
        driver.execute_script("clearInterval(window.catalogGallery.live.pollTimer)")
        process.terminate()
        process.wait(timeout=30)
        driver.execute_script("document.getElementById('scroller').scrollTop += 400")
        wait(driver, f"{FAILED_IMAGES} > 0")
        process, _ = start_server(library["database"], port, workspace / "restart-thumbnails")
        wait_for_every_image(driver)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_viewers_image_that_failed_while_the_server_was_away_loads_once_it_is_back(driver, library, workspace):
    """The viewer's image asked for while the server was away: shown once it answers, as the
    gallery's images are. It said "the image cannot be shown" until a key was pressed."""
    port, process = loaded_on_a_server_of_its_own(driver, library, workspace, "viewer-retry-thumbnails")
    try:
        # The newest items are the scanned photos: the first and the second both have originals.
        first = driver.execute_script("""return [...window.catalogGallery.tiles.live.values()].map((t) => t.item)
            .find((item) => item.index === 0)""")
        assert first and first["version"], first
        driver.execute_script("window.catalogGallery.viewer.open(arguments[0])", first)
        shown_whole = """(() => { const image = document.getElementById('viewer-image');
            return document.getElementById('viewer').open && !image.hidden && image.complete && image.naturalWidth > 0
                && document.getElementById('viewer-placeholder').hidden })()"""
        wait(driver, shown_whole, timeout=30)
        process.terminate()
        process.wait(timeout=30)
        driver.execute_script("window.catalogGallery.viewer.step(1)")
        wait(driver, "document.getElementById('viewer').dataset.index === '1'"
                     " && document.getElementById('viewer-placeholder').textContent.includes('cannot be shown')", timeout=30)
        process, _ = start_server(library["database"], port, workspace / "viewer-retry-thumbnails")
        wait(driver, f"document.getElementById('viewer').dataset.index === '1' && {shown_whole}", timeout=30)
        wait(driver, "document.getElementById('viewer-details').textContent.includes('×')", timeout=30)
    finally:
        process.terminate()
        process.wait(timeout=30)


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


def test_a_focused_image_that_is_removed_hands_its_focus_to_the_next(driver, workspace):
    database, _ = scanned_in_order(workspace, "removed-focus", 6, seed=31)
    photos = workspace / "removed-focus-photos"
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


def test_a_browser_with_the_gallery_in_many_tabs_loads_every_one(driver, server):
    """A hidden tab closes its event stream: a browser keeps six connections to a server, and
    every open stream held one, so the sixth gallery open in a tab stayed on "Loading…"."""
    first = driver.current_window_handle
    opened = []
    try:
        for n in range(8):
            driver.switch_to.new_window("tab")
            opened.append(driver.current_window_handle)
            driver.get(server)
            wait(driver, READY, timeout=30, message=f"tab {n + 2}")
    finally:
        for handle in opened:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(first)
        driver.execute_cdp_cmd("Page.bringToFront", {}) # shown again: a hidden page draws no frames
        wait(driver, "document.visibilityState === 'visible'")

