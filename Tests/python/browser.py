"""Real Chromium (Debian's chromium and chromium-driver), driven through selenium as a person
uses the playground: it opens links, types, clicks and reads what the page shows.

When a test fails, conftest.py saves a screenshot of each browser it used (see `in_use`)
into .build/playground-failures/. With CHATBOTKIT_PLAYGROUND_SCREENSHOTS set to a folder,
`keep_screenshot` also saves the named views there (docs/playground holds the README's)."""

import os
import shutil
from pathlib import Path
from urllib.parse import urlencode

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SCREENSHOTS = os.environ.get("CHATBOTKIT_PLAYGROUND_SCREENSHOTS")


class Browser:
    """One headless Chromium window; `name` labels its screenshots."""

    def __init__(self, name: str, width=1280, height=860):
        self.name = name
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={width},{height}", "--force-device-scale-factor=1", "--lang=en-US"):
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)

    def open(self, base_url: str, user=None, channel="messaging:general", name=None):
        """The page as `user` in `channel` (the deep link), once it says it is ready."""
        query = {key: value for key, value in (("user", user), ("name", name), ("channel", channel)) if value}
        self.driver.get(f"{base_url}/?{urlencode(query)}" if query else f"{base_url}/")
        if user:
            self.wait(lambda d: d.find_element(By.CSS_SELECTOR, "body[data-ready='true']"), what="the page to be ready")
        return self

    def wait(self, condition, timeout=20, what="the condition"):
        def safe(driver):
            try:
                return condition(driver)
            except StaleElementReferenceException:
                return False
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05, ignored_exceptions=[Exception]).until(safe)
        except TimeoutException:
            raise AssertionError(f"{self.name}: no {what} within {timeout} s") from None

    def find(self, css, within=None):
        return (within or self.driver).find_element(By.CSS_SELECTOR, css)

    def find_all(self, css, within=None):
        return (within or self.driver).find_elements(By.CSS_SELECTOR, css)

    def wait_for(self, css, timeout=20):
        return self.wait(lambda d: d.find_element(By.CSS_SELECTOR, css), timeout, what=css)

    def message(self, text, user=None, after=None, timeout=20, where=".channel-main .messages"):
        """The first message (in `where`) whose text contains `text`, by `user`, after the message `after`."""
        def found(_):
            for node in self.messages(where):
                if after is not None and node.get_attribute("data-id") == after:
                    after_seen[0] = True
                    continue
                if after is not None and not after_seen[0]:
                    continue
                if user is not None and node.get_attribute("data-user") != user:
                    continue
                if text in node.text:
                    return node
            after_seen[0] = False
            return False
        after_seen = [False]
        return self.wait(found, timeout, what=f"message with {text!r}" + (f" by {user}" if user else ""))

    def messages(self, where=".channel-main .messages"):
        return self.find_all(f"{where} article.message")

    def texts(self, where=".channel-main .messages"):
        return [node.text for node in self.messages(where)]

    def composer(self, where=".channel-main"):
        return self.find(f"{where} .composer")

    def type(self, text, where=".channel-main"):
        self.find("textarea[name='text']", self.composer(where)).send_keys(text)

    def send(self, text="", where=".channel-main"):
        """Types `text` into the composer and presses Send; the sent message's id."""
        if text:
            self.type(text, where)
        typed = self.find("textarea[name='text']", self.composer(where)).get_attribute("value")
        before = {node.get_attribute("data-id") for node in self.messages(f"{where} .messages")}
        self.find("button.send", self.composer(where)).click()
        if not typed:
            return None
        node = self.wait(lambda _: next((n for n in self.messages(f"{where} .messages") if n.get_attribute("data-id") not in before
                                         and n.get_attribute("data-user") == self.user_id()), False), what="the sent message")
        return node.get_attribute("data-id")

    def user_id(self):
        return self.driver.execute_script("return new URLSearchParams(location.search).get('user')")

    def attach(self, path: Path, where=".channel-main"):
        self.find("input.file-input", self.composer(where)).send_keys(str(path))

    def script(self, code, *args):
        return self.driver.execute_script(code, *args)

    def fetch_text(self, url):
        """What the page gets for `url` (same origin), fetched by the page itself."""
        return self.driver.execute_async_script(
            "fetch(arguments[0]).then(r => r.text()).then(arguments[1], e => arguments[1]('failed: ' + e));", url)

    def screenshot(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))

    def quit(self):
        self.driver.quit()


def keep_screenshot(browser: Browser, name: str, height=None):
    """Saves the view as NAME.png into CHATBOTKIT_PLAYGROUND_SCREENSHOTS, when it is set; a
    window `height` pixels tall for the shot, when given."""
    if not SCREENSHOTS:
        return
    size = browser.driver.get_window_size()
    if height:
        browser.driver.set_window_size(size["width"], height)
        browser.script("document.querySelectorAll('.messages').forEach(list => { list.scrollTop = list.scrollHeight; })")
    try:
        browser.screenshot(Path(SCREENSHOTS) / f"{name}.png")
    finally:
        if height:
            browser.driver.set_window_size(size["width"], size["height"])
