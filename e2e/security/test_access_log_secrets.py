"""Path secrets never reach the access log of a real `gatehouse serve`.

A real browser signs up, opens the verification link, asks for a reset and sets a new password through the
rendered forms; then the process's own stdout is searched for the link tokens. Only the log mailer's lines
(the stand-in for an SMTP server, which must carry the link) may contain them; every access-log line shows
the route pattern instead.
"""
import json
import re
import sys
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "browser"))

from selenium.webdriver.common.by import By  # noqa: E402

from test_accounts import fill, submit, click_and_wait  # noqa: E402


def request_lines(server):
    lines = []
    for line in list(server.lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("msg") == "request":
            lines.append((line, entry))
    return lines


def test_reset_and_verify_tokens_stay_out_of_the_access_log(gatehouse, browsers):
    driver = browsers()
    driver.get(gatehouse.url + "/sign-up")
    fill(driver, email="lin@example.com", password="correct horse battery")
    submit(driver, "/sign-up")
    verify = gatehouse.wait_for_link("lin@example.com", "/email/verify/")
    driver.get(verify)
    fill(driver, password="correct horse battery")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/email/verify/"] button[type=submit]'))
    assert "Email confirmed" in driver.page_source

    driver.get(gatehouse.url + "/password/forgot")
    fill(driver, email="lin@example.com")
    submit(driver, "/password/forgot")
    reset = gatehouse.wait_for_link("lin@example.com", "/password/reset/")
    driver.get(reset)
    fill(driver, new_password="another fine password")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/password/reset/"] button[type=submit]'))
    assert "Password changed" in driver.page_source

    secrets = [re.search(r"/email/verify/([^/?\s]+)", verify).group(1), re.search(r"/password/reset/([^/?\s]+)", reset).group(1)]
    requests = request_lines(gatehouse)
    assert requests, "the access log is on"
    for line, entry in requests:
        for secret in secrets:
            assert secret not in line, "a path secret reached the access log: " + line
    paths = {entry["path"] for _, entry in requests}
    assert "/email/verify/{token}" in paths and "/password/reset/{token}" in paths, paths
    # A request no route matches shows only its first segment, whatever follows it.
    driver.get(gatehouse.url + "/password/reset/" + secrets[1] + "/extra")
    unmatched = [entry for _, entry in request_lines(gatehouse) if entry.get("route") == "(unmatched)"]
    assert unmatched and all(secrets[1] not in json.dumps(entry) for entry in unmatched)
