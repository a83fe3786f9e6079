"""Path configuration as hotwire-native-ios loads it (Source/Turbo/Path Configuration/).

Sources load in order; every valid document *replaces* the rules (PathConfiguration.update sets
`rules = config.rules`, then appends the default historical-location routes): rules from two
sources never merge. A document whose `rules` is not an array of objects with a `patterns` array of
strings and a `properties` object is rejected as a whole (PathConfigurationDecoder / PathRule).
Server sources answer asynchronously in the library, so a server source replaces a bundled one.
"""
import json
import re
import urllib.parse
import urllib.request

DEFAULT_SERVER_ROUTES = [
    {"patterns": ["/recede_historical_location"], "properties": {"presentation": "pop", "context": "default", "historical_location": True}},
    {"patterns": ["/resume_historical_location"], "properties": {"presentation": "none", "context": "default", "historical_location": True}},
    {"patterns": ["/refresh_historical_location"], "properties": {"presentation": "refresh", "context": "default", "historical_location": True}},
]


class InvalidPathConfiguration(ValueError):
    pass


def decode(document):
    if not isinstance(document, dict) or not isinstance(document.get("rules"), list):
        raise InvalidPathConfiguration("rules must be an array")
    rules = []
    for rule in document["rules"]:
        if not isinstance(rule, dict):
            raise InvalidPathConfiguration("a rule must be an object")
        patterns, properties = rule.get("patterns"), rule.get("properties")
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns) or not isinstance(properties, dict):
            raise InvalidPathConfiguration("patterns must be an array of strings and properties an object")
        rules.append({"patterns": patterns, "properties": properties})
    settings = document.get("settings") if isinstance(document.get("settings"), dict) else {}
    return settings, rules


class PathConfiguration:
    """`sources`: a list of ("data", dict-or-bytes) and ("server", url) entries, loaded in order."""

    def __init__(self, sources=(), events=None, match_query_strings=True):
        self.sources = list(sources)
        self.events = events
        self.match_query_strings = match_query_strings
        self.settings = {}
        self.rules = list(DEFAULT_SERVER_ROUTES)
        self.loaded_from = None

    def _record(self, kind, **data):
        if self.events:
            self.events.record(kind, **data)

    def load(self):
        for kind, value in self.sources:
            try:
                if kind == "server":
                    with urllib.request.urlopen(value, timeout=5) as response:
                        if response.status != 200:
                            raise InvalidPathConfiguration(f"status {response.status}")
                        document = json.loads(response.read())
                    name = value
                else:
                    document = json.loads(value) if isinstance(value, (bytes, str)) else value
                    name = "data"
                settings, rules = decode(document)
            except Exception as error:   # the library logs and keeps what it had
                self._record("path_configuration_rejected", source=kind, value=str(value)[:200], error=str(error))
                continue
            self.settings = settings
            self.rules = rules + DEFAULT_SERVER_ROUTES
            self.loaded_from = name
            self._record("path_configuration_loaded", source=name, rules=len(rules))
        return self

    def properties(self, url):
        parts = urllib.parse.urlsplit(url)
        path = parts.path or "/"
        if self.match_query_strings and parts.query:
            path = f"{path}?{parts.query}"
        merged = {}
        for rule in self.rules:
            if any(_search(pattern, path) for pattern in rule["patterns"]):
                merged.update(rule["properties"])
        return merged


def _search(pattern, path):
    try:
        return re.search(pattern, path) is not None
    except re.error:   # NSRegularExpression failing to compile: the pattern is skipped
        return False
