"""axe-core 4.x in Selenium-driven Chromium: the copy PyPI's axe-playwright-python ships (installed by
scripts/bootstrap without Playwright), injected into the page and run against WCAG 2.x A and AA rules."""
import importlib.util
import json
import pathlib

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]


def axe_source():
    spec = importlib.util.find_spec("axe_playwright_python")   # found, not imported: it would import Playwright
    assert spec is not None, "axe-playwright-python is missing: run scripts/bootstrap test"
    path = pathlib.Path(list(spec.submodule_search_locations)[0]) / "axe.min.js"
    return path.read_text()


_SOURCE = None


def run_axe(driver):
    """The page's WCAG A/AA violations, as (rule id, impact, help, [target selectors]) tuples, and the axe version."""
    global _SOURCE
    if _SOURCE is None:
        _SOURCE = axe_source()
    driver.execute_script(_SOURCE)
    result = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})
           .then(r => done(JSON.stringify({version: axe.version, violations: r.violations})))
           .catch(e => done(JSON.stringify({error: String(e)})));
    """, WCAG_TAGS)
    parsed = json.loads(result)
    assert "error" not in parsed, parsed.get("error")
    violations = [(v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]]) for v in parsed["violations"]]
    return parsed["version"], violations


def assert_accessible(driver, name):
    version, violations = run_axe(driver)
    assert version.startswith("4."), version
    assert not violations, f"{name}: axe {version} found WCAG A/AA violations: {json.dumps(violations, indent=1)}"
