"""Sections in the gallery: headers pinned as they scroll, and the scrubber of years, months or folders."""
import random
import re
import shutil
import urllib.parse
import urllib.request
from pathlib import Path

from conftest import api, catalog, screenshot, wait
from gallery import READY, state, open_gallery, native_scroll, free_port, start_server


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
    rng = random.Random(7)
    rows = [(f"now-{index}", 400, 300, "2026-11-10T12:00:00") for index in range(40)]
    rows += [random_row(rng, f"old-{index}", rng.randint(2020, 2024)) for index in range(2000)]
    process, url = serve_rows(workspace, "years", rows)
    try:
        show_sections(driver, url, "#sections=month", "month")
        assert driver.execute_script("return document.querySelector('#scrubber button').textContent") == "2026"
        assert_months_under_their_years(driver)
    finally:
        process.terminate()
        process.wait(timeout=30)


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


def test_a_large_year_beside_small_ones_keeps_its_scrubber_label(driver, workspace):
    """The newest years are a sliver of the scrollbar: 2026 with some images, 2025 with two,
    2024 with many, then decades of older ones. The larger year keeps a label, a little off
    its place if need be (the first label, 2026's, took the room, and 2024 could not be
    jumped to); labels stay in order, none over another."""
    rng = random.Random(11)
    rows = [random_row(rng, f"y{year}-{index}", year)
            for year, count in [(2026, 300), (2025, 2), (2024, 600)] + [(y, 2000) for y in range(2000, 2024)] for index in range(count)]
    process, url = serve_rows(workspace, "large-year", rows)
    try:
        show_sections(driver, url, "#sections=year", "year")
        labels = driver.execute_script("""return [...document.querySelectorAll('#scrubber button')]
            .map((b) => ({ text: b.textContent, top: b.getBoundingClientRect().top, bottom: b.getBoundingClientRect().bottom }))""")
        texts = [label["text"] for label in labels]
        assert "2024" in texts, texts
        assert texts == sorted(texts, reverse=True), "in the sections' order"
        assert all(a["bottom"] <= b["top"] for a, b in zip(labels, labels[1:])), labels
    finally:
        process.terminate()
        process.wait(timeout=30)



def test_the_scrubber_in_path_order_labels_months_with_their_years_and_names_no_folder(driver, workspace):
    """In path order a year's months do not run together: each start of a year weighed the whole
    year's images, and the biggest year's starts took every label (one year, 32 times). Each
    month is labelled with its year then. With folder sections, the imported items' section
    (no folder) had a label with no text."""
    rng = random.Random(5)
    folder = workspace / "path-months-photos" / "trip"
    folder.mkdir(parents=True)
    fixtures = Path(__file__).resolve().parents[1] / "ImageProbeTests/Fixtures"
    for name in ["baseline.jpg", "progressive.jpg"]:
        shutil.copy(fixtures / name, folder / name)
    rows = [random_row(rng, f"k{rng.randrange(10**9):09d}", rng.randint(2010, 2023)) for _ in range(3000)]
    process, url = serve_rows(workspace, "path-months", rows, scanned=folder.parent)
    try:
        show_sections(driver, url, "#sort=path&sections=month", "month")
        labels = driver.execute_script("return [...document.querySelectorAll('#scrubber button')].map((b) => ({ text: b.textContent, year: b.classList.contains('year') }))")
        texts = [label["text"] for label in labels]
        assert not any(label["year"] for label in labels), labels
        assert all(re.fullmatch(r"\S+ \d{4}", text) for text in texts), texts
        assert len(set(texts)) > len(texts) // 2, f"mostly different months: {texts}"
        show_sections(driver, url, "#sort=path&sections=folder", "folder")
        labels = driver.execute_script("""return [...document.querySelectorAll('#scrubber button')]
            .map((b) => ({ text: b.textContent, width: b.getBoundingClientRect().width }))""")
        assert [label["text"] for label in labels] == ["trip", "(no folder)"], labels
        assert all(label["width"] > 20 for label in labels), labels
    finally:
        process.terminate()
        process.wait(timeout=30)


def serve_rows(workspace, name, rows, scanned=None):
    """A catalog of the CSV `rows` (key, width, height, date), and of the folder `scanned` if
    given, served; returns the server's process and URL."""
    database = workspace / f"{name}.sqlite"
    path = workspace / f"{name}.csv"
    with path.open("w") as out:
        out.write("key,width,height,date\n")
        for key, width, height, date in rows:
            out.write(f"{key},{width},{height},{date}\n")
    catalog("import", "--db", database, path)
    if scanned:
        catalog("scan", "--db", database, scanned)
    return start_server(database, free_port(), workspace / f"{name}-thumbnails")


def random_row(rng, key, year):
    return key, rng.randint(200, 800), rng.randint(200, 800), f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00"


def show_sections(driver, url, fragment, sections):
    """The gallery at `url` + `fragment`, once its sections are `sections` and the scrubber has labels."""
    driver.set_window_size(1280, 900)
    driver.get("about:blank")
    driver.get(url + fragment)
    wait(driver, f"document.getElementById('plane').dataset.sections === '{sections}' && {READY} && document.querySelectorAll('#scrubber button').length > 1")
