"""Writes docs/screenshots/: the sign-in page in two brands (a light and a dark palette), as a 390 px phone and a
desktop window, and in German and Arabic (right to left) in the first brand. Run after a debug build:
`python3 e2e/a11y/screenshots.py`."""
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from conftest import GatehouseProcess, make_browser  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent.parent / "docs" / "screenshots"
LANGUAGES = ["de", "ar"]

BRANDS = {
    "acme": {"product_name": "Acme Cloud", "logo": "logo.svg",
             "colors": {"primary": "#0b5cad", "background": "#ffffff", "text": "#1a1a1a"},
             "support_links": [{"label": "Help centre", "url": "https://acme.example/help"},
                               {"label": "Privacy", "url": "https://acme.example/privacy"}]},
    "nightjar": {"product_name": "Nightjar",
                 "colors": {"primary": "#7cc4ff", "background": "#10141c", "text": "#f2f4f8"},
                 "support_links": [{"label": "Support", "url": "mailto:help@nightjar.example"}]},
}
LOGO = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32">'
        '<rect width="32" height="32" rx="8" fill="#0b5cad"/><path d="M9 23 16 8l7 15h-4l-3-7-3 7z" fill="#fff"/>'
        '<text x="40" y="22" font-family="sans-serif" font-size="16" font-weight="700" fill="#1a1a1a">Acme</text></svg>')


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, branding in BRANDS.items():
        folder = tempfile.mkdtemp(prefix="gatehouse-shot-")
        (pathlib.Path(folder) / "logo.svg").write_text(LOGO)
        if "logo" in branding:
            branding = dict(branding, logo=str(pathlib.Path(folder) / "logo.svg"))
        server = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "0"}, config={"branding": branding, "providers": {
            "google": {"client_id": "shots.apps.googleusercontent.com", "client_secret": "shots-secret-0123456789"},
            "github": {"client_id": "shots", "client_secret": "shots-secret-0123456789"}}})
        try:
            for label, size in (("phone", (390, 844)), ("desktop", (1000, 900))):
                driver = make_browser()
                try:
                    driver.set_window_size(*size)
                    driver.get(server.url + "/sign-in")
                    path = OUT / f"sign-in-{name}-{label}.png"
                    driver.save_screenshot(str(path))
                    print(path)
                    if name != "acme" or label != "phone":
                        continue
                    # The languages: the browser asks for each (Accept-Language), as a visitor's would.
                    driver.execute_cdp_cmd("Network.enable", {})
                    for tag in LANGUAGES:
                        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": tag}})
                        driver.get(server.url + "/sign-in")
                        assert driver.find_element("tag name", "html").get_attribute("lang") == tag
                        path = OUT / f"sign-in-{name}-{label}-{tag}.png"
                        driver.save_screenshot(str(path))
                        print(path)
                finally:
                    driver.quit()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
