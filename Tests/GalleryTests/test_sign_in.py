"""Signing in to the gallery of a server that listens beyond loopback with access control on:
the form, a wrong token, a right one, the session cookie's flags, a reload that stays signed in,
signing out, and a revoked token that sends the gallery back to the form. No console error
(a Content-Security-Policy violation is one) is allowed."""
import subprocess

import pytest
from selenium.webdriver.common.by import By

from conftest import BINARY, catalog, screenshot, wait, write_photos

READY = "document.getElementById('plane')?.dataset.state === 'complete'"
FORM_SHOWN = "document.getElementById('sign-in')?.hidden === false && document.body.classList.contains('signing-in')"


@pytest.fixture(scope="module")
def private(workspace):
    """A small catalog, a token for it, and `catalog serve --host 0.0.0.0` (its URL on 127.0.0.1)."""
    database = workspace / "private.sqlite"
    write_photos(workspace / "private-photos", 12, seed=9, prefix="private")
    catalog("scan", "--db", database, workspace / "private-photos")
    token = catalog("token", "new", "--db", database, "--label", "browser").stdout.strip()
    process = subprocess.Popen(
        [str(BINARY), "serve", "--db", str(database), "--host", "0.0.0.0", "--port", "0",
         "--thumbnail-cache", str(workspace / "private-thumbnails")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    assert line.startswith("listening on http://0.0.0.0:"), line
    url = "http://127.0.0.1:" + line.rsplit(":", 1)[1].rstrip("/")
    yield {"url": url, "token": token, "database": database}
    process.terminate()
    assert process.wait(timeout=30) == 0
    log = process.stderr.read()
    assert token not in log, "the token never reaches the server's output"


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
            and "401 (Unauthorized)" not in entry["message"]]  # the session check before signing in


def contrast(first, second):
    """WCAG's contrast ratio of two computed `rgb(...)` colours."""
    def luminance(colour):
        channels = [int(part) / 255 for part in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def sign_in(driver, token):
    field = driver.find_element(By.ID, "sign-in-token")
    field.clear()
    field.send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()


def test_the_gallery_asks_for_a_token_and_keeps_a_strict_http_only_session(driver, private):
    driver.delete_all_cookies()
    driver.get("about:blank")
    driver.get_log("browser")
    driver.get(private["url"] + "/")
    wait(driver, FORM_SHOWN, timeout=30, message="the sign-in form")
    assert driver.execute_script("return document.querySelectorAll('[data-item-id]').length") == 0, "nothing shown before signing in"
    screenshot(driver, "sign-in-form")

    sign_in(driver, "catalog_" + "x" * 43)
    wait(driver, "document.getElementById('sign-in-message').textContent.includes('not valid')", timeout=30)
    assert driver.get_cookies() == [], "no cookie for a wrong token"
    # The field says it is wrong, and where; the form is the page's main landmark.
    field = driver.find_element(By.ID, "sign-in-token")
    assert field.get_attribute("aria-invalid") == "true" and field.get_attribute("aria-describedby") == "sign-in-message"
    assert driver.execute_script("return document.getElementById('sign-in').closest('main') !== null")
    # Text and button read at 4.5:1 at least, in both schemes (WCAG 1.4.3).
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        colours = driver.execute_script("""const s = (e) => getComputedStyle(e);
            const button = document.querySelector('#sign-in button'), message = document.getElementById('sign-in-message');
            return [[s(button).color, s(button).backgroundColor], [s(message).color, s(document.body).backgroundColor]];""")
        for foreground, background in colours:
            assert contrast(foreground, background) >= 4.5, f"{scheme}: {foreground} on {background}"
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})

    sign_in(driver, private["token"])
    wait(driver, READY, timeout=60, message="the gallery after signing in")
    assert driver.execute_script("return document.querySelectorAll('[data-item-id]').length") > 0
    assert not driver.find_element(By.ID, "sign-out").get_attribute("hidden")
    cookies = {cookie["name"]: cookie for cookie in driver.get_cookies()}
    session = cookies["catalog_session"]
    assert session["httpOnly"] is True
    assert session["sameSite"] == "Strict"
    assert session["secure"] is False  # plain http here; Secure with an https --public-url
    assert private["token"] not in session["value"]
    assert driver.execute_script("return document.cookie") == "", "scripts cannot read the session"
    wait(driver, "[...document.querySelectorAll('#plane img')].some((image) => image.complete && image.naturalWidth > 0)",
         timeout=60, message="thumbnails load with the cookie")
    screenshot(driver, "signed-in")

    driver.refresh()
    wait(driver, READY, timeout=60, message="still signed in after a reload")

    driver.find_element(By.ID, "sign-out").click()
    wait(driver, FORM_SHOWN, timeout=30, message="the form again after signing out")
    assert "catalog_session" not in {cookie["name"] for cookie in driver.get_cookies()}
    assert not console_errors(driver), console_errors(driver)


def test_a_revoked_token_sends_the_gallery_back_to_the_form(driver, private):
    second = catalog("token", "new", "--db", private["database"], "--label", "revoked-later").stdout.strip()
    driver.delete_all_cookies()
    driver.get(private["url"] + "/")
    wait(driver, FORM_SHOWN, timeout=30)
    sign_in(driver, second)
    wait(driver, READY, timeout=60)
    catalog("token", "revoke", "--db", private["database"], "revoked-later")
    driver.refresh()
    wait(driver, FORM_SHOWN, timeout=30, message="the session of a revoked token ends")
    driver.get_log("browser")
