"""The viewer, the carousel and the place in the gallery while another process changes the
catalog's order under them (an import of newer items: everything after them moves)."""
import random

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

import os

from conftest import api, catalog, wait
from gallery import (
    CAROUSEL_SETTLED, READY, hold_requests, native_scroll, release_requests, scanned_in_order, shown, state, top_of,
)

GENERATION = "Number(document.getElementById('plane').dataset.generation)"


def imported(workspace, name, count, year, seed):
    """A CSV of `count` items dated within `year` (newer years go first in the date order)."""
    rng = random.Random(seed)
    path = workspace / f"{name}.csv"
    lines = ["key,width,height,date,title"]
    for n in range(count):
        lines.append(f"{name}-{n},{rng.randint(300, 3000)},{rng.randint(300, 3000)},"
                     f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00,{name} {n}")
    path.write_text("\n".join(lines) + "\n")
    return path


def base_catalog(workspace, name):
    database = workspace / f"{name}.sqlite"
    catalog("import", "--db", database, imported(workspace, f"{name}-base", 2000, 2015, seed=7))
    return database


def test_the_viewer_steps_through_the_new_order_after_an_import(driver, workspace):
    """The viewer open on the sixth image; 50 newer items imported: → shows the image after
    the one shown, not the one at its old index plus one (a new item)."""
    database = base_catalog(workspace, "viewer-order")
    with shown(driver, database, workspace / "viewer-order-thumbnails") as url:
        wait(driver, READY)
        order = api(url, "/api/items?offset=0&limit=8")["items"]
        driver.execute_script(f"window.catalogGallery.open({order[5]['id']})")
        wait(driver, f"document.getElementById('viewer').open && document.getElementById('viewer').dataset.itemId === '{order[5]['id']}'")
        generation = driver.execute_script(f"return {GENERATION}")
        catalog("import", "--db", database, imported(workspace, "viewer-order-new", 50, 2030, seed=8))
        wait(driver, f"{GENERATION} > {generation} && document.getElementById('viewer').dataset.index === '55'", timeout=30,
             message="the viewer's image is at its new index")
        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
        wait(driver, f"document.getElementById('viewer').dataset.itemId === '{order[6]['id']}'",
             message="the image after the one shown")
        assert driver.find_element("id", "viewer").get_attribute("data-index") == "56"


def test_the_carousel_lays_its_row_out_again_for_a_new_order(driver, workspace):
    """The carousel open on the sixth image; 50 newer items imported: its row is laid out again
    around the same image (its place and the count said anew), with no tiles of two orders
    over each other, and → goes to the image after it (it stepped into the new items)."""
    database = base_catalog(workspace, "carousel-order")
    with shown(driver, database, workspace / "carousel-order-thumbnails") as url:
        wait(driver, READY)
        order = api(url, "/api/items?offset=0&limit=8")["items"]
        driver.execute_script(f"location.hash = '#carousel={order[5]['id']}'")
        wait(driver, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{order[5]['id']}'")
        catalog("import", "--db", database, imported(workspace, "carousel-order-new", 50, 2030, seed=9))
        wait(driver, "document.getElementById('carousel-status').textContent.endsWith(', 56 of 2050')", timeout=30,
             message="the centred image's new place and the new count")
        wait(driver, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{order[5]['id']}'")
        tiles = driver.execute_script("""return [...document.querySelectorAll('.carousel-tile')]
            .map((tile) => [Number(tile.dataset.x), parseFloat(tile.style.width), Number(tile.dataset.index)])
            .sort((a, b) => a[0] - b[0])""")
        for (x, width, index), (next_x, _, next_index) in zip(tiles, tiles[1:]):
            assert x + width <= next_x + 0.5 and next_index == index + 1, f"tiles of one order, side by side: {tiles}"
        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
        wait(driver, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{order[6]['id']}'",
             message="the image after the centred one")


def test_two_changes_close_together_keep_the_item_at_the_top_in_place(driver, workspace):
    """Two imports close together on a slow network: the second comes while the first's layout
    is shown but its tiles are still the old layout's. The item at the top stays where it was
    on the screen (the second change found no tile in view and kept only the share scrolled)."""
    database = base_catalog(workspace, "two-changes")
    with shown(driver, database, workspace / "two-changes-thumbnails"):
        wait(driver, READY)
        native_scroll(driver, 0.3)
        before = state(driver)
        top = top_of(before)
        try:
            # The bands are held (the layouts around an item, and the change sets, are not).
            hold_requests(driver, only="url.includes('/api/page?') && url.includes('offset=')")
            catalog("import", "--db", database, imported(workspace, "two-changes-a", 200, 2030, seed=10))
            # The first change laid out, its tiles still the old layout's (its bands on their way).
            wait(driver, f"{GENERATION} === {before['generation'] + 1} && document.getElementById('plane').dataset.state === 'loading'"
                         " && window.catalogGallery.placedItem !== null", timeout=30)
            catalog("import", "--db", database, imported(workspace, "two-changes-b", 200, 2031, seed=11))
            wait(driver, f"{GENERATION} > {before['generation'] + 1}", timeout=60)
        finally:
            release_requests(driver)
        wait(driver, READY, timeout=60)
        after = state(driver)
        assert after["itemCount"] == before["itemCount"] + 400
        tile = next((t for t in after["tiles"] if t["id"] == top["id"]), None)
        assert tile is not None and abs(tile["screenY"] - top["screenY"]) < 1, (top, tile)


def test_the_viewer_steps_from_where_its_removed_image_stood(driver, workspace):
    """The viewer's own image removed by a scan: it stays shown, and → goes to the image that
    took its place, ← to the one before; at the end, → goes nowhere. The viewer kept the old
    index: → skipped an image, and at the end went backwards."""
    database, _ = scanned_in_order(workspace, "viewer-removed", 6, seed=41)
    photos = workspace / "viewer-removed-photos"
    with shown(driver, database, workspace / "viewer-removed-thumbnails") as url:
        wait(driver, READY)
        items = api(url, "/api/items")["items"]
        viewer = "document.getElementById('viewer')"
        for shown_index, removed, key, expected in [(2, [2], "ARROW_RIGHT", 3), (2, [2], "ARROW_LEFT", 1), (5, [4, 5], "ARROW_RIGHT", None)]:
            generation = int(driver.execute_script("return document.getElementById('plane').dataset.generation"))
            driver.execute_script(f"window.catalogGallery.open({items[shown_index]['id']})")
            wait(driver, f"{viewer}.open && {viewer}.dataset.itemId === '{items[shown_index]['id']}'")
            away = workspace / "viewer-removed-away"
            away.mkdir(exist_ok=True)
            for index in removed:  # out of the scanned folder: removed from the catalog
                os.rename(items[index]["path"], away / os.path.basename(items[index]["path"]))
            catalog("scan", "--db", database, photos)
            wait(driver, f"{GENERATION} > {generation} && window.catalogGallery.viewer.between", timeout=30)
            ActionChains(driver).send_keys(getattr(Keys, key)).perform()
            if expected is None:
                assert driver.find_element("id", "viewer-next").get_attribute("aria-disabled") == "true"
                wait(driver, f"window.catalogGallery.viewer.heading === null && {viewer}.dataset.itemId === '{items[shown_index]['id']}'")
            else:
                wait(driver, f"{viewer}.dataset.itemId === '{items[expected]['id']}'", message=f"{key} from the removed image")
            ActionChains(driver).send_keys(Keys.ESCAPE).perform()
            wait(driver, f"!{viewer}.open")
            for index in removed:  # back, for the next round (as new items)
                os.rename(away / os.path.basename(items[index]["path"]), items[index]["path"])
            generation = int(driver.execute_script("return document.getElementById('plane').dataset.generation"))
            catalog("scan", "--db", database, photos)
            wait(driver, f"{GENERATION} > {generation} && {READY}", timeout=30)
            items = api(url, "/api/items")["items"]

