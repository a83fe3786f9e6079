"""Every mail Gatehouse sends, as its reader's mail client shows it: each is caused through the rendered forms in
headless Chromium (the browser asking for the language), caught by a real SMTP server (the aiosmtpd sink), parsed by
Python's `email` package, and its HTML part loaded into Chromium, where axe-core 4.x finds no WCAG 2.2 A/AA violation
(the language and direction set, the contrast of the brand's palette, every link named). The words, the button's
too, are the catalogue's of the language the page was in."""
import base64
import pathlib
import re
import subprocess
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from axe_support import assert_accessible
from conftest import BINARY, ROOT, GatehouseProcess, screenshot
from mail_sink import MailSink
from test_axe import PASSWORD, _stale

FILES = ROOT / "Sources" / "GatehouseServer" / "Assets" / "Files"
BRANDS = {
    "acme": {"product_name": "Acme Cloud", "colors": {"primary": "#0b5cad", "background": "#ffffff", "text": "#1a1a1a"}},
    "nightjar": {"product_name": "Nightjar", "colors": {"primary": "#7cc4ff", "background": "#10141c", "text": "#f2f4f8"}},
}
# Each mail Identity sends (its MailKind), the address it goes to in this walk and its subject's catalogue key.
MAILS = {
    "verifyEmail": ("new@example.com", "mail.verify.subject"),
    "alreadyRegistered": ("lin@example.com", "mail.already_registered.subject"),
    "passwordReset": ("lin@example.com", "mail.reset.subject"),
    "passwordResetNoAccount": ("nobody@example.com", "mail.reset.subject"),
    "passwordResetDisabled": ("off@example.com", "mail.reset.subject"),
    "emailChange": ("lin@elsewhere.example", "mail.email_change.subject"),
    "emailChangeNotice": ("lin@example.com", "mail.email_change_notice.subject"),
    "passwordSetup": ("pat@example.com", "mail.password_setup.subject"),
}


def catalogue(tag):
    """The shipped catalogue's `key = text` lines (what the server words the mails from)."""
    text = (FILES / f"{tag}.catalogue").read_text()
    return {key: value for key, value in re.findall(r"^([a-z_.\[\]0-9]+) = (.*)$", text, re.M)}


def test_the_walk_covers_every_mail_the_server_sends():
    source = (ROOT / "Sources" / "GatehouseIdentity" / "Mail" / "MailWording.swift").read_text()
    kinds = re.findall(r"^    case (\w+)$", source.split("public enum MailKind")[1].split("}")[0], re.M)
    assert kinds and set(kinds) == set(MAILS)


@pytest.fixture
def sink():
    mail = MailSink()
    yield mail
    mail.stop()


def start(sink, brand):
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config={
        "mail": {"url": f"smtp://127.0.0.1:{sink.port}", "from": "id@acme.example", "from_name": brand["product_name"],
                 "starttls": "off"},
        "branding": brand})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    for address in ("lin@example.com", "off@example.com"):
        subprocess.run([str(BINARY), "user", "create", "--email", address, "--password-stdin", "--verified"],
                       input=PASSWORD + "\n", text=True, env=env, check=True, capture_output=True)
    subprocess.run([str(BINARY), "user", "disable", "--email", "off@example.com"], env=env, check=True, capture_output=True)
    return process


def send(driver, action, **fields):
    """Fills the form posting to `action` as rendered and submits it with its button."""
    form = driver.find_element(By.CSS_SELECTOR, f'form[action="{action}"]')
    for name, value in fields.items():
        element = form.find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)
    old = driver.find_element(By.TAG_NAME, "html")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(driver, 15).until(lambda d: _stale(old))


def cause_every_mail(driver, base):
    driver.get(base + "/sign-up")
    send(driver, "/sign-up", email="new@example.com", password=PASSWORD)          # verifyEmail
    driver.get(base + "/sign-up")
    send(driver, "/sign-up", email="lin@example.com", password=PASSWORD)          # alreadyRegistered
    for address in ("lin@example.com", "nobody@example.com", "off@example.com"):  # the three answers to a reset
        driver.get(base + "/password/forgot")
        send(driver, "/password/forgot", email=address)
    driver.get(base + "/sign-in")
    send(driver, "/sign-in", email="lin@example.com", password=PASSWORD)
    send(driver, "/account/email", new_email="lin@elsewhere.example")              # emailChange + emailChangeNotice
    driver.delete_all_cookies()
    # A provider-only account (the simulated Google of demo mode) asks for its first password.
    driver.get(base + "/sign-in")
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, 'form[action="/auth/google"] button').click()
    WebDriverWait(driver, 15).until(lambda d: _stale(old))
    for name, value in (("email", "pat@example.com"), ("name", "Pat")):
        field = driver.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, 'button[value="allow"]').click()
    WebDriverWait(driver, 15).until(lambda d: _stale(old))
    assert driver.current_url == base + "/account"
    send(driver, "/account/password/setup")                                         # passwordSetup


def caught(sink, texts, timeout=30):
    """Each mail of MAILS as the sink received it, found by its address and its subject in the language."""
    deadline = time.time() + timeout
    while True:
        found = {}
        for kind, (address, subject) in MAILS.items():
            matching = [m for m in sink.messages(address) if m["Subject"] == texts[subject]]
            if kind == "passwordReset":
                matching = [m for m in matching if "/password/reset/" in m.get_body(("plain",)).get_content()]
            if matching:
                found[kind] = matching[-1]
        if len(found) == len(MAILS) or time.time() > deadline:
            assert set(found) == set(MAILS), f"missing: {set(MAILS) - set(found)}; got {[m['Subject'] for m in sink.messages()]}"
            return found
        time.sleep(0.2)


@pytest.mark.parametrize("brand,tag", [("acme", "en"), ("acme", "ar"), ("nightjar", "de"), ("nightjar", "ja")])
def test_every_mail_passes_axe_in_the_readers_language(sink, browsers, brand, tag):
    server = start(sink, BRANDS[brand])
    try:
        driver = browsers()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": tag}})
        cause_every_mail(driver, server.url)
        texts = catalogue(tag)
        mails = caught(sink, texts)
    finally:
        server.stop()

    reader = browsers()
    for kind, message in mails.items():
        assert not message.defects, (kind, message.defects)
        assert message.get_content_type() == "multipart/alternative", kind
        assert message["Content-Language"] == tag, kind
        text = message.get_body(("plain",)).get_content()
        html = message.get_body(("html",)).get_content()
        links = re.findall(r"https?://\S+", text)
        reader.get("data:text/html;base64," + base64.b64encode(html.encode()).decode())
        screenshot(reader, f"mail-{brand}-{tag}-{kind}")
        root = reader.find_element(By.TAG_NAME, "html")
        assert (root.get_attribute("lang"), root.get_attribute("dir")) == (tag, "rtl" if tag == "ar" else "ltr"), kind
        body = reader.find_element(By.TAG_NAME, "body").text
        assert BRANDS[brand]["product_name"] in body and "Gatehouse" not in body, kind
        # A paragraph that is only a link became a button worded in the mail's language; every link of the text
        # part is a link in the HTML part too.
        buttons = [a.text for a in reader.find_elements(By.CSS_SELECTOR, "p > a:only-child") if a.get_attribute("style")
                   and "inline-block" in a.get_attribute("style")]
        if any(line.strip().startswith("http") and " " not in line.strip() for line in text.split("\n\n")):
            assert buttons == [texts["mail.open_link"]], (kind, buttons)
        for link in links:
            link = link.rstrip(".,;:!?)。、，．！？）」』】،؛؟")
            assert reader.find_elements(By.CSS_SELECTOR, f'a[href="{link}"]'), (kind, link)
        if tag != "en":
            assert "Open the link" not in html, kind
        assert_accessible(reader, f"{brand} {tag} mail {kind}")

