"""The guides' snippets are the files the tests run, byte for byte; and the app's Gatehouse-specific Ruby is counted.

    python3 e2e/rails/test_guides.py --write    # refreshes the snippets and the line counts in the guides
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
GUIDES = [ROOT / "docs" / "integrations" / "rails.md", ROOT / "docs" / "integrations" / "api.md",
          ROOT / "Sources" / "GatehouseClient" / "README.md"]
RAILS = ROOT / "examples" / "rails"
SNIPPET = re.compile(r"<!-- snippet: (?P<path>\S+) -->\n(?:```(?P<lang>\w*)\n(?P<body>.*?)```\n)?", re.S)
COUNT_TABLE = re.compile(r"<!-- line-counts -->\n.*?<!-- /line-counts -->\n", re.S)
LANGUAGES = {".rb": "ruby", ".erb": "erb", ".js": "js", ".swift": "swift", "": "ruby"}


def code_lines(lines):
    """Non-blank lines that are not comments (Ruby `#`, ERB `<%#` and the rest of a multi-line ERB comment, `//`)."""
    count, in_erb_comment = 0, False
    for line in lines:
        text = line.strip()
        if in_erb_comment:
            in_erb_comment = "%>" not in text
            continue
        if text.startswith("<%#"):
            in_erb_comment = "%>" not in text
            continue
        if text and not text.startswith("#") and not text.startswith("//"):
            count += 1
    return count


def block(path, start, end):
    """The lines of `path` from the first line matching `start` to the first line after it matching `end`."""
    lines = (RAILS / path).read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if re.search(start, line))
    last = next(i for i in range(first, len(lines)) if re.search(end, lines[i]))
    return lines[first:last + 1]


def counts():
    """(what, file, lines) for sign-in (initializer, callback, buttons), then sign-out and silent re-login."""
    sign_in = [
        ("initializer", "config/initializers/gatehouse.rb", code_lines((RAILS / "config/initializers/gatehouse.rb").read_text().splitlines())),
        ("callback (find or create by sub)", "app/controllers/sessions_controller.rb `create`",
         code_lines(block("app/controllers/sessions_controller.rb", r"def create", r"^  end"))),
        ("buttons", "app/views/sessions/new.html.erb", code_lines(block("app/views/sessions/new.html.erb", r"form_tag", r"<% end %>"))),
        ("callback and failure routes", "config/routes.rb", 2),
    ]
    extras = [
        ("sign-out (RP-initiated logout)", "sessions_controller.rb `destroy`",
         code_lines(block("app/controllers/sessions_controller.rb", r"def destroy", r"^  end"))),
        ("silent re-login", "`silent`, `failure`, silent.html.erb, one line of `request_authentication`, 2 routes",
         code_lines(block("app/controllers/sessions_controller.rb", r"def silent", r"^  end"))
         + code_lines(block("app/controllers/sessions_controller.rb", r"def failure", r"^  end"))
         + code_lines((RAILS / "app/views/sessions/silent.html.erb").read_text().splitlines()) + 1 + 2),
    ]
    return sign_in, extras


def count_table():
    sign_in, extras = counts()
    rows = ["<!-- line-counts -->", "| part | where | lines |", "|---|---|---|"]
    rows += [f"| {what} | {where} | {n} |" for what, where, n in sign_in]
    rows.append(f"| **sign-in with password, Apple, Google, GitHub** | | **{sum(n for *_, n in sign_in)}** |")
    rows += [f"| {what} | {where} | {n} |" for what, where, n in extras]
    rows.append("<!-- /line-counts -->")
    return "\n".join(rows) + "\n"


def render(text):
    def replace(match):
        path = ROOT / match["path"]
        body = path.read_text()
        return f"<!-- snippet: {match['path']} -->\n```{LANGUAGES.get(path.suffix, '')}\n{body}```\n"
    return COUNT_TABLE.sub(lambda _: count_table(), SNIPPET.sub(replace, text))


def test_every_snippet_is_the_file_the_tests_run():
    for guide in GUIDES:
        text = guide.read_text()
        snippets = list(SNIPPET.finditer(text))
        assert snippets, f"{guide.name} has snippets"
        for match in snippets:
            assert match["body"] == (ROOT / match["path"]).read_text(), \
                f"{guide.name}: the snippet of {match['path']} differs from the file (run e2e/rails/test_guides.py --write)"


def test_line_counts_in_the_guide_are_current_and_within_budget():
    sign_in, _ = counts()
    assert sum(n for *_, n in sign_in) <= 40
    assert count_table() in (ROOT / "docs" / "integrations" / "rails.md").read_text()


if __name__ == "__main__" and "--write" in sys.argv:
    for guide in GUIDES:
        guide.write_text(render(guide.read_text()))
    print(count_table())
