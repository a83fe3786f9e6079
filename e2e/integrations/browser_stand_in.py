"""Stands in for the system browser in docs/integrations/http.md: opens an /oauth/authorize URL,
signs in on Gatehouse's real sign-in form (CSRF token and all), answers "Continue as …?" with Allow, and
prints the redirect back to the app's private-use scheme. Usage: browser_stand_in.py URL (EMAIL and PASSWORD from the environment)."""
import html
import os
import re
import sys
import urllib.parse

import requests


def hidden_fields(page):
    fields = {}
    for tag in re.findall(r"<input[^>]*>", page):
        if 'type="hidden"' in tag:
            name = re.search(r'name="([^"]*)"', tag)
            value = re.search(r'value="([^"]*)"', tag)
            if name:
                fields[html.unescape(name.group(1))] = html.unescape(value.group(1)) if value else ""
    return fields


def main(url):
    session = requests.Session()
    scheme = urllib.parse.urlsplit(os.environ["REDIRECT_URI"]).scheme
    response = session.get(url, allow_redirects=False, timeout=10)
    for _ in range(10):
        location = response.headers.get("Location")
        if response.status_code in (302, 303) and location:
            if location.startswith(scheme + ":"):
                print(location)
                return
            response = session.get(urllib.parse.urljoin(response.url, location), allow_redirects=False, timeout=10)
            continue
        if response.status_code == 200 and 'action="/oauth/authorize/decision"' in response.text:
            # "Continue to <app> as <user>?" (public custom-scheme clients always ask): the user clicks Allow.
            fields = hidden_fields(response.text.split('action="/oauth/authorize/decision"', 1)[1].split("</form>", 1)[0])
            fields["decision"] = "allow"
            response = session.post(urllib.parse.urljoin(response.url, "/oauth/authorize/decision"), data=fields,
                                    allow_redirects=False, timeout=10)
            continue
        if response.status_code == 200 and 'action="/sign-in"' in response.text:
            fields = hidden_fields(response.text)
            fields.update(email=os.environ["EMAIL"], password=os.environ["PASSWORD"])
            response = session.post(urllib.parse.urljoin(response.url, "/sign-in"), data=fields, allow_redirects=False, timeout=10)
            continue
        break
    sys.exit(f"browser stand-in: stuck at {response.status_code} {response.url}")


if __name__ == "__main__":
    main(sys.argv[1])
