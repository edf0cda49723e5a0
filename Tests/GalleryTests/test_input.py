"""Input taken as the person gave it: a touch pan near either end of a catalog taller than the
scroll cap, single notches of a wheel in the carousel, quick presses in the viewer on a slow
network, the zoom of justified rows in the address, the zoom buttons at their limits, and the
scrubber after a rotation."""
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import wait
from gallery import (
    CAROUSEL_CENTRED, CAROUSEL_SETTLED, READY, hold_requests, open_carousel_from_the_viewer, open_gallery, release_requests, slow_network,
    visible,
)

SCROLLER = "window.catalogGallery.scroller"


def touch_pan(browser, x, y, dy, steps=30):
    """One finger dragged `dy` pixels, held still at the end (no fling), then lifted."""
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y, "id": 1}]})
    for n in range(1, steps + 1):
        browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y + dy * n / steps, "id": 1}]})
    time.sleep(0.25)  # part of the gesture: the finger held still before it lifts, so no fling follows
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_a_touch_pan_near_either_end_moves_the_images_by_what_it_asks(browser, server):
    """On a scrollbar scaled down (the content past the browser's height cap), a pan 3,000
    points from the top reached the scrollbar's top and jumped to the content's; near the end,
    to the end."""
    open_gallery(browser, server)
    if not browser.execute_script(f"return {SCROLLER}.scaled"):
        pytest.skip("the catalog is not taller than the scroll cap (GALLERY_ITEMS of 1,000,000 is)")
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    try:
        for start, dy in [(3000, 700), (f"{SCROLLER}.maxTop - 3000", -600)]:
            browser.execute_script(f"{SCROLLER}.scrollTo({start}); window.catalogGallery.render();")
            wait(browser, READY)
            before = browser.execute_script(f"return {SCROLLER}.top")
            touch_pan(browser, 640, 450 - dy // 2, dy)
            # (Moved, too: a page too busy to see the pan before the finger lifts ends it unmoved.)
            wait(browser, f"!{SCROLLER}.touching && {READY} && {SCROLLER}.top !== {before}", message="the pan has ended")
            moved = browser.execute_script(f"return {SCROLLER}.top") - before
            # What the finger moved, give or take the few points Chromium's touch slop adds or takes.
            assert -dy - 20 <= moved <= -dy / 2 if dy > 0 else -dy / 2 <= moved <= -dy + 20, f"a {dy} px pan moved the content {moved}"
        # Pans reach the end they go to (each stopped short of it, by less every time: the
        # scrollbar, put back in proportion, left a pan 1/5 of the room it needed).
        for (start, dy, end) in [(3000, 600, "0"), (f"{SCROLLER}.maxTop - 3000", -600, f"{SCROLLER}.maxTop")]:
            browser.execute_script(f"{SCROLLER}.scrollTo({start}); window.catalogGallery.render();")
            wait(browser, READY)
            for _ in range(6):
                at = browser.execute_script(f"return {SCROLLER}.top")
                touch_pan(browser, 640, 450 - dy // 2, dy)
                wait(browser, f"!{SCROLLER}.touching && {READY} && ({SCROLLER}.top !== {at} || {SCROLLER}.top === {end})",
                     message="the pan has ended")
            left = browser.execute_script(f"return Math.abs({SCROLLER}.top - {end})")
            assert left < 0.5, f"six pans of 600 reach an end 3,000 away: {left} points short"
    finally:
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def test_single_notches_of_a_wheel_step_the_carousel(browser, server):
    """A notch gives one scroll event, so no speed: the snap took the nearest image, the one
    the row started from, and a wheel turned a notch at a time never moved it. Nor did a notch
    turned while an older snap's answer was on its way."""
    open_carousel_from_the_viewer(browser, server)
    centred = "Number(document.querySelector(`.carousel-tile[data-item-id='${document.getElementById('carousel').dataset.centred}']`).dataset.index)"
    start = browser.execute_script(f"return {centred}")
    row = browser.find_element(By.ID, "carousel-scroller")
    for n in range(1, 4):
        ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(row), 0, 120).perform()
        wait(browser, f"{CAROUSEL_SETTLED} && {centred} === {start + n}", message=f"notch {n}")
    # A notch while a snap for where the row was is on its way (the one after the opening's own
    # scroll, on a slow server): that answer is stale. It glided the row back, and the notch's
    # own snap, asked for during the glide, was dropped: the notch moved nothing.
    try:
        hold_requests(browser, only="url.includes('/api/snap')")
        browser.execute_script("window.catalogGallery.carousel.snap()")
        wait(browser, "window.heldRequests.length === 1")
        # The notch, and at once the older answer (the notch's own snap is asked for 90 ms later).
        browser.execute_script("""document.getElementById('carousel-scroller')
            .dispatchEvent(new WheelEvent('wheel', { deltaY: 120, bubbles: true, cancelable: true }));
            window.heldRequests.shift()();""")
        wait(browser, "window.heldRequests.length === 1", message="the notch's snap")
        release_requests(browser)
        wait(browser, f"{CAROUSEL_SETTLED} && {centred} === {start + 4}", message="the notch after a stale snap")
    finally:
        release_requests(browser)
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "document.getElementById('carousel').hidden")


def test_a_click_on_an_image_beside_wins_over_a_press_still_on_its_way(browser, server):
    """The row glided to the image clicked, then, once the server answered, to where an earlier
    press asked to go: the click is what the person wants now."""
    first = open_carousel_from_the_viewer(browser, server)
    try:
        hold_requests(browser, only="url.includes('/api/snap')")
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        wait(browser, "window.catalogGallery.carousel.stepping && window.heldRequests.length >= 1", message="the press's snap")
        left = browser.execute_script("""const index = Number(document.querySelector(`.carousel-tile[data-item-id='${document.getElementById('carousel').dataset.centred}']`).dataset.index);
            return document.querySelector(`.carousel-tile[data-index='${index - 1}']`).dataset.itemId""")
        browser.find_element(By.CSS_SELECTOR, f".carousel-tile[data-item-id='{left}']").click()
        wait(browser, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{left}'")
    finally:
        release_requests(browser)
    # A press now goes on from the image clicked, whenever the old answer comes: back to the first.
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait(browser, f"{CAROUSEL_SETTLED} && document.getElementById('carousel').dataset.centred === '{first['id']}' && {CAROUSEL_CENTRED}")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "document.getElementById('carousel').hidden")


def test_a_snap_the_server_did_not_answer_is_asked_again(browser, server):
    """A notch while the server could not be reached left the row half scrolled, an image cut
    off, after the server was back."""
    open_carousel_from_the_viewer(browser, server)
    carousel = "window.catalogGallery.carousel"
    try:
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        row = browser.find_element(By.ID, "carousel-scroller")
        ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(row), 0, 120).perform()
        wait(browser, f"{carousel}.snapRetry !== undefined && !{carousel}.animating", message="the failed snap")
        assert not browser.execute_script(f"return {CAROUSEL_CENTRED}"), "the notch moved the row; nothing centred it"
    finally:
        slow_network(browser, 0)
    wait(browser, f"{CAROUSEL_SETTLED} && {CAROUSEL_CENTRED}", message="centred once the server answers")
    browser.get_log("browser")  # the failed requests' own console lines
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "document.getElementById('carousel').hidden")


def test_quick_presses_in_the_viewer_on_a_slow_network_move_as_many_images(browser, server):
    """Each press went on from the image shown, and a newer one cancelled the one still on its
    way: at 300 ms a request, 20 quick presses moved the viewer about 12 images."""
    snapshot = open_gallery(browser, server)
    first = min(visible(snapshot), key=lambda t: t["index"])
    browser.find_element(By.CSS_SELECTOR, f".tile[data-item-id='{first['id']}']").click()
    wait(browser, "document.getElementById('viewer').open")
    try:
        slow_network(browser, 300)
        # No band loaded: every step asks the server where its item is.
        browser.execute_script("const g = window.catalogGallery; g.bands.reset(g.parameters, g.bands.generation);")
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT * 20).perform()
        wait(browser, f"document.getElementById('viewer').dataset.index === '{first['index'] + 20}'", timeout=60)
        # Past the first image: the presses stop there (the last one, past it, dropped those before).
        ActionChains(browser).send_keys(Keys.ARROW_LEFT * (first["index"] + 30)).perform()
        wait(browser, "document.getElementById('viewer').dataset.index === '0'", timeout=60)
        ends = browser.execute_script("return ['viewer-previous', 'viewer-next'].map((id) => document.getElementById(id).getAttribute('aria-disabled'))")
        assert ends == ["true", "false"], f"‹ leads nowhere at the first image, › does: {ends}"
        # A press the network does not carry moves nothing, and the next goes on from the image shown.
        # (Offline first: a band asked for between the reset and going offline would be there.)
        browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        browser.execute_script("const g = window.catalogGallery; g.bands.reset(g.parameters, g.bands.generation);")
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        wait(browser, "window.catalogGallery.viewer.heading === null", message="the failed step is over")
        slow_network(browser, 0)
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
        wait(browser, "document.getElementById('viewer').dataset.index === '1'")
        browser.get_log("browser")  # the offline request's own console line
    finally:
        slow_network(browser, 0)
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, "!document.getElementById('viewer').open")


def test_justified_rows_zoom_in_a_phone_wide_view(browser, server):
    """Rows zoomed by column counts: a view 375 wide went from two columns to one, whose rows
    were as tall as before, so + did nothing. They grow by a quarter a step, to the view's width."""
    browser.set_window_size(390, 800)
    try:
        open_gallery(browser, server, "#style=justified")
        heights = [int(browser.execute_script("return document.getElementById('plane').dataset.rowHeight"))]
        for _ in range(3):
            browser.find_element(By.ID, "zoom-in").click()
            wait(browser, f"Number(document.getElementById('plane').dataset.rowHeight) > {heights[-1]} && {READY}")
            heights.append(int(browser.execute_script("return document.getElementById('plane').dataset.rowHeight")))
        width = browser.execute_script("return document.getElementById('plane').dataset.width")
        assert heights[-1] <= float(width) * 0.8 + 1, (heights, width)
    finally:
        browser.set_window_size(1280, 900)


def test_a_link_to_an_image_not_in_the_catalog_says_so(browser, server):
    """A link to an image removed since (or from another catalog) opened the gallery at the top
    without a word, and a viewer link to one opened nothing."""
    status = "document.getElementById('status')"
    for fragment in ["#item=99999999", "#view=99999999", "#item=5&view=0", "#carousel=99999999"]:  # the carousel's closed silently
        browser.get("about:blank")
        browser.get(server + fragment)
        wait(browser, f"{status}.dataset.kind === 'notice' && {status}.textContent.startsWith('The linked image is not in this catalog')")
        assert not browser.execute_script("return document.getElementById('viewer').open"), fragment
        assert browser.execute_script("return document.getElementById('carousel').hidden"), fragment
    # A band slow to come does not put "Loading…" over the notice (it did at once: the notice
    # lasted a quarter of a second on a slow network).
    try:
        hold_requests(browser, only="url.includes('offset=')")
        browser.execute_script("""const g = window.catalogGallery;
            g.status.notice('The linked image is not in this catalog (again)');
            g.bands.reset(g.parameters, g.bands.generation);
            g.render();""")
        wait(browser, "window.catalogGallery.loadingSince !== null && performance.now() - window.catalogGallery.loadingSince > 300")
        browser.execute_script("window.catalogGallery.render()")
        assert browser.execute_script(f"return {status}.dataset.kind") == "notice"
        # "Loading…" comes once the notice goes, while the band is still on its way.
        browser.execute_script("window.catalogGallery.status.clear('notice')")
        assert browser.execute_script(f"return {status}.textContent") == "Loading…"
    finally:
        release_requests(browser)
    wait(browser, f"{READY} && {status}.textContent === ''")
    # The console's only errors are the 404s of the missing image (no request for id 0).
    errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors and all("99999999" in message and "404" in message for message in errors), errors
    # A link to an image that is there says nothing.
    open_gallery(browser, server, "#item=5")
    assert browser.execute_script(f"return {status}.textContent") == ""


def test_the_zoom_buttons_say_when_they_can_do_nothing(browser, server):
    """− and + looked the same at the fewest and most columns (or the tallest rows), where a
    press does nothing: each is aria-disabled exactly where it cannot zoom, and the output says
    what it counts."""
    plane = "document.getElementById('plane').dataset"
    disabled = lambda name: browser.find_element(By.ID, name).get_attribute("aria-disabled")
    browser.set_window_size(390, 800)
    try:
        open_gallery(browser, server, "#style=waterfall")
        for button, step in [("zoom-in", -1), ("zoom-out", 1)]:
            for _ in range(12):  # every press a button allows changes the columns
                if disabled(button) == "true":
                    break
                cols = int(browser.execute_script(f"return {plane}.cols"))
                browser.find_element(By.ID, button).click()
                wait(browser, f"Number({plane}.cols) === {cols + step} && {READY}")
            assert disabled(button) == "true"
            assert disabled("zoom-out" if button == "zoom-in" else "zoom-in") == "false"
        assert browser.execute_script(f"return {plane}.cols") == str(browser.execute_script(
            "return Math.floor((window.catalogGallery.element.clientWidth - 8) / 104)")), "zoomed out to the most columns"
        assert browser.find_element(By.ID, "columns").get_attribute("aria-label") == "Columns"
        open_gallery(browser, server, "#style=justified")
        for _ in range(12):
            if disabled("zoom-in") == "true":
                break
            height = int(browser.execute_script(f"return {plane}.rowHeight"))
            browser.find_element(By.ID, "zoom-in").click()
            wait(browser, f"Number({plane}.rowHeight) > {height} && {READY}")
        assert disabled("zoom-in") == "true" and disabled("zoom-out") == "false"
        assert browser.find_element(By.ID, "columns").get_attribute("aria-label") == "Row height"
        assert browser.find_element(By.ID, "zoom-in").get_attribute("aria-label") == "Zoom in (taller rows)"
    finally:
        browser.set_window_size(1280, 900)


def test_the_zoom_of_justified_rows_is_kept_by_the_address(browser, server):
    """Justified rows zoom by their height; the address kept only `cols` (which rows do not
    have), so a reload or a shared link was back at the default height, elsewhere."""
    open_gallery(browser, server, "#style=justified")
    default = int(browser.execute_script("return document.getElementById('plane').dataset.rowHeight"))
    browser.find_element(By.ID, "zoom-in").click()
    wait(browser, f"Number(document.getElementById('plane').dataset.rowHeight) > {default} && {READY}")
    height = browser.execute_script("return document.getElementById('plane').dataset.rowHeight")
    wait(browser, f"location.hash.includes('row-height={height}&style=justified')")
    browser.refresh()
    wait(browser, f"document.getElementById('plane').dataset.rowHeight === '{height}' && {READY}")
    assert browser.find_element(By.ID, "columns").get_attribute("value") == f"{height} px rows"


def test_the_scrubber_fits_the_view_after_a_rotation_then_a_change_of_height(browser, server):
    """A rotation changes the width and the height at once; the height was not noted then, so a
    later change of the height alone was missed and the labels stayed placed for the old one."""
    metrics = lambda width, height: browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    try:
        metrics(1000, 800)
        open_gallery(browser, server, "#sections=year")
        wait(browser, "document.querySelectorAll('#scrubber button').length > 0")
        height = lambda: browser.execute_script("return document.getElementById('scroller').clientHeight")
        before = height()
        metrics(800, 1000)
        wait(browser, f"Number(document.getElementById('plane').dataset.width) <= 800 && !window.catalogGallery.relayoutPending && {READY}")
        # Back to the height the view had before the rotation (the one last noted), at the new width.
        metrics(800, 1000 - (height() - before))
        wait(browser, f"document.getElementById('scroller').clientHeight === {before}")
        wait(browser, """(() => { const s = document.getElementById('scrubber').getBoundingClientRect();
            const labels = [...document.querySelectorAll('#scrubber button')];
            return labels.length > 0 && labels.every((b) => b.getBoundingClientRect().bottom <= s.bottom + 1); })()""",
             timeout=60, message="every label inside the scrubber")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
